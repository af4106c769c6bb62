package io.activityservice.app.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.activityservice.app.support.Api;
import io.activityservice.app.support.Api.Response;
import io.activityservice.app.support.HeadlessChromium;
import io.activityservice.app.support.SseClient;
import io.activityservice.app.support.WebhookReceiver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The console in a real headless Chromium (Debian's chromium and chromium-driver, driven by
 * Selenium) against the service on a random port: sign in with the keyboard, create a subscription
 * after testing its pattern, watch the rate chart and the live tail, save a rule with a syntax
 * error and see it at its line, redrive a dead letter, and every page at 1280×800 and in a narrow
 * window. Screenshots go to {@code target/console-screenshots/}.
 *
 * <p>Skipped with the reason when chromium or chromedriver is missing; under {@code CI=true} that
 * fails instead ({@code .ci/run} installs them).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ConsoleBrowserTest {

  static final Path SHOTS = Path.of("target", "console-screenshots");
  static final Duration WAIT = Duration.ofSeconds(20);
  static final int WIDE = 1280;
  static final int HIGH = 800;
  static final int NARROW = 420;

  static final WebhookReceiver webhook = new WebhookReceiver();
  static HeadlessChromium browser;
  static ChromeDriver driver;

  @LocalServerPort int port;
  Api api;

  @BeforeAll
  static void browser() throws IOException {
    browser = HeadlessChromium.start(WIDE, HIGH);
    driver = browser.driver();
    Files.createDirectories(SHOTS);
  }

  @AfterAll
  static void closeBrowser() throws IOException {
    if (browser != null) {
      browser.close();
    }
    webhook.close();
  }

  @BeforeEach
  void setUp() {
    api = new Api(port);
    resize(WIDE);
  }

  /**
   * No script error, CSP violation or failed module in the page (answers 4xx of probes are
   * expected).
   */
  @AfterEach
  void noScriptErrors() {
    List<LogEntry> severe =
        driver.manage().logs().get(LogType.BROWSER).getAll().stream()
            .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue())
            .filter(e -> !e.getMessage().contains("Failed to load resource"))
            .toList();
    assertThat(severe).as("browser console errors").isEmpty();
  }

  // ---- helpers

  private String base() {
    return "http://127.0.0.1:" + port;
  }

  private static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  private WebDriverWait waiting() {
    // Pages re-render what they show (verdicts, lists): an element found a moment ago may be
    // replaced.
    return (WebDriverWait)
        new WebDriverWait(driver, WAIT).ignoring(StaleElementReferenceException.class);
  }

  private WebElement find(String css) {
    return waiting().until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(css)));
  }

  private void resize(int width) {
    driver.manage().window().setSize(new Dimension(width, HIGH));
  }

  /** Opens the console at a route, signing in first when asked to. */
  private void open(String route) {
    if (!driver.getCurrentUrl().startsWith(base() + "/console/")) {
      driver.get(base() + "/console/");
    }
    Boolean signIn =
        (Boolean)
            ((JavascriptExecutor) driver)
                .executeScript("return !document.getElementById('sign-in').hidden");
    if (Boolean.TRUE.equals(signIn)) {
      WebElement key = find("#sign-in-key");
      key.sendKeys(SseClient.TEST_KEY, Keys.ENTER);
      find("#nav");
    }
    driver.get(base() + "/console/#/" + route);
    waiting().until(d -> d.getCurrentUrl().endsWith("#/" + route));
  }

  /** Sets a text control's value as a paste would (and tells the page). */
  private void paste(WebElement control, String text) {
    ((JavascriptExecutor) driver)
        .executeScript(
            "arguments[0].value = arguments[1];"
                + "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));",
            control,
            text);
  }

  private void screenshot(String name) throws IOException {
    // Let charts and fonts settle for a frame.
    ((JavascriptExecutor) driver)
        .executeAsyncScript("requestAnimationFrame(() => setTimeout(arguments[0], 50))");
    Files.write(SHOTS.resolve(name + ".png"), driver.getScreenshotAs(OutputType.BYTES));
  }

  /** The page fits the window: nothing needs a horizontal scroll bar to be read. */
  private void assertNoHorizontalScroll(String page) {
    Long overflow =
        (Long)
            ((JavascriptExecutor) driver)
                .executeScript(
                    "return Math.max(0, document.documentElement.scrollWidth - window.innerWidth)");
    if (overflow > 1) {
      // Name the elements that stick out, deepest first, so the failure says what to fix.
      Object culprits =
          ((JavascriptExecutor) driver)
              .executeScript(
                  """
          const clipped = e => { for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
            if (getComputedStyle(p).overflowX !== 'visible') return true; } return false; };
          return [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right
            > window.innerWidth + 1 && !clipped(e)).slice(-5)
            .map(e => e.tagName + '.' + e.className + '#' + e.id + ' ' + Math.round(e.getBoundingClientRect().right));""");
      Assertions.fail(page + " overflows the window by " + overflow + " px: " + culprits);
    }
  }

  private String registerType() {
    String type = unique("com.example.console.reading");
    Response r =
        api.postJson(
            "/api/v1/event-types",
            """
        {"type": "%s", "description": "Meter reading for the console test", "owner": "console",
         "schema": {"type": "object", "required": ["meter", "value"],
                    "properties": {"meter": {"type": "string"}, "value": {"type": "number"}}}}"""
                .formatted(type));
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    return type;
  }

  private String event(String id, String type, int value) {
    return """
        {"specversion": "1.0", "id": "%s", "source": "/meters/m1", "type": "%s",
         "data": {"meter": "m1", "value": %d}}"""
        .formatted(id, type, value);
  }

  // ---- the scenarios

  @Test
  void signInWithTheKeyboardAndSignOut() throws IOException {
    driver.get(base() + "/console/");
    ((JavascriptExecutor) driver).executeScript("sessionStorage.clear()");
    driver.navigate().refresh();
    WebElement key = find("#sign-in-key");
    assertThat(driver.switchTo().activeElement()).as("the key field has the focus").isEqualTo(key);
    assertThat(key.getAttribute("type")).isEqualTo("password");
    screenshot("sign-in");
    key.sendKeys(SseClient.TEST_KEY, Keys.ENTER);
    find("#nav");
    assertThat(find("#page h1").getText()).isEqualTo("Live");
    assertThat(driver.getCurrentUrl()).doesNotContain(SseClient.TEST_KEY);
    assertThat(driver.findElements(By.cssSelector("#nav li:not([hidden]) a")))
        .extracting(WebElement::getText)
        .contains(
            "Live",
            "Event types",
            "Subscriptions",
            "Dead letters",
            "Detectors",
            "Rules",
            "Channels",
            "Cluster",
            "Capacity");
    assertThat(
            (String)
                ((JavascriptExecutor) driver)
                    .executeScript("return sessionStorage.getItem('activity.console.key')"))
        .isEqualTo(SseClient.TEST_KEY);
    assertThat(driver.manage().getCookies()).as("no cookie holds the key").isEmpty();

    find("#sign-out").click();
    find("#sign-in-key");
    assertThat(
            (String)
                ((JavascriptExecutor) driver)
                    .executeScript("return sessionStorage.getItem('activity.console.key')"))
        .isNull();
  }

  @Test
  void aSubscriberKeySeesOnlyWhatItsRoleReaches() throws IOException {
    String key =
        api.createKey(
            unique("console-subscriber"), List.of("subscriber"), List.of("com.example.console.*"));
    driver.get(base() + "/console/");
    ((JavascriptExecutor) driver).executeScript("sessionStorage.clear()");
    driver.navigate().refresh();
    find("#sign-in-key").sendKeys(key, Keys.ENTER);
    find("#nav");
    assertThat(driver.findElements(By.cssSelector("#nav li:not([hidden]) a")))
        .extracting(WebElement::getText)
        .containsExactly("Live", "Event types", "Subscriptions", "Dead letters");
    assertThat(find("#identity").getText()).startsWith("key:").endsWith("subscriber");
    // Live for a subscriber: the tail of its event types, no charts (statistics need admin or
    // metrics).
    waiting().until(d -> "Live".equals(d.findElement(By.cssSelector("#page h1")).getText()));
    find("#live-tail textarea[name=pattern]");
    assertThat(driver.findElements(By.id("chart-in"))).isEmpty();
    screenshot("subscriber-live");
    driver.get(base() + "/console/#/channels");
    assertThat(find("#page .notice").getText()).isEqualTo("Not allowed for your role.");

    find("#sign-out").click();
    find("#sign-in-key");
  }

  @Test
  void subscriptionIsCreatedAfterTestingItsPatternAgainstASampleEvent() throws IOException {
    String type = registerType();
    open("types/" + type);
    assertThat(find("#type-schema").getText()).contains("\"value\"");
    screenshot("event-type");
    find("#type-test-pattern").click();

    find("#subscription-form");
    WebElement pattern = find("#subscription-form textarea[name=pattern]");
    paste(
        pattern,
        """
        {
          "type": ["%s"],
          "data": {"value": [{"numeric": [">", 100]}]}
        }"""
            .formatted(type));
    WebElement eventEditor = find("#pattern-tester textarea[name=event]");
    assertThat(eventEditor.getAttribute("value"))
        .as("the sample event was handed over")
        .contains(type)
        .contains("\"value\": 1");
    find("#test-pattern").click();
    WebElement verdict =
        waiting().until(d -> d.findElement(By.cssSelector("#pattern-verdict .verdict")));
    assertThat(verdict.getAttribute("data-matches")).isEqualTo("false");
    assertThat(verdict.getText()).contains("Does not match").contains("data.value is 1");

    paste(eventEditor, eventEditor.getAttribute("value").replace("\"value\": 1", "\"value\": 150"));
    find("#test-pattern").click();
    waiting()
        .until(
            d ->
                "true"
                    .equals(
                        d.findElement(By.cssSelector("#pattern-verdict .verdict"))
                            .getAttribute("data-matches")));
    assertThat(find("#pattern-verdict").getText()).contains("Matches");

    String name = unique("console subscription");
    find("#sub-name").sendKeys(name);
    find("#sub-target").sendKeys(webhook.url("/" + name.replace(' ', '-')));
    screenshot("subscription-editor");
    find("#save-subscription").click();
    waiting().until(d -> d.getCurrentUrl().matches(".*#/subscriptions/[0-9a-f-]{36}$"));
    assertThat(find("#page h1").getText()).isEqualTo("Subscription " + name);

    Response list = api.get("/api/v1/subscriptions");
    assertThat(list.json().findValues("name").stream().map(n -> n.asText())).contains(name);
    var saved =
        java.util.stream.StreamSupport.stream(list.json().spliterator(), false)
            .filter(s -> s.get("name").asText().equals(name))
            .findFirst()
            .orElseThrow();
    assertThat(saved.get("pattern").get("data").get("value").get(0).get("numeric").get(1).asInt())
        .isEqualTo(100);

    open("subscriptions");
    find("tr[data-subscription='" + name + "']");
    screenshot("subscriptions");
  }

  @Test
  void aSignedSubscriptionWithABreakerShowsItsSecretOnceAndItsTargetState() throws IOException {
    open("subscriptions/new");
    paste(
        find("#subscription-form textarea[name=pattern]"), "{\"type\": [\"com.example.signed\"]}");
    String name = unique("signed subscription");
    find("#sub-name").sendKeys(name);
    find("#sub-target").sendKeys(webhook.url("/" + name.replace(' ', '-')));
    find("#sub-signing").click();
    find("#sub-rate").sendKeys("20");
    find("#sub-breaker-failures").sendKeys("3");
    find("#sub-breaker-open").sendKeys("PT10S");
    find("#save-subscription").click();
    waiting().until(d -> d.getCurrentUrl().matches(".*#/subscriptions/[0-9a-f-]{36}$"));
    String secret = find("#signing-secret").getText();
    assertThat(secret).startsWith("whsec_");
    assertThat(find("#target-circuit").getText()).isEqualTo("closed");
    assertThat(find("#webhook-panel").getText())
        .contains("standard-webhooks")
        .contains("20/s (burst");
    screenshot("subscription-webhook");

    // Shown once: reloading the page shows no secret; a rotation shows the new one.
    driver.navigate().refresh();
    find("#webhook-panel");
    assertThat(driver.findElements(By.cssSelector("#signing-secret"))).isEmpty();
    assertThat(driver.getPageSource()).doesNotContain(secret);
    find("#rotate-secret").click();
    String rotated = find("#signing-secret").getText();
    assertThat(rotated).startsWith("whsec_").isNotEqualTo(secret);
  }

  @Test
  void theSubscriptionEditorPreviewsTheTransformedDeliveryAndShowsExpressionErrors()
      throws IOException {
    open("subscriptions/new");
    paste(find("#subscription-form textarea[name=pattern]"), "{\"type\": [\"com.example.order\"]}");
    find("#sub-target").sendKeys("jms:queue:legacy.orders");
    paste(find("#sub-transform-data"), "{'ref': data.orderId, 'amount': data.total}");
    new org.openqa.selenium.support.ui.Select(find("#sub-format")).selectByValue("data");
    paste(
        find("#pattern-tester textarea[name=event]"),
        """
        {"specversion": "1.0", "id": "o-1", "source": "/shop", "type": "com.example.order",
         "datacontenttype": "application/json", "data": {"orderId": "o-1", "total": 42.5}}""");
    find("#test-pattern").click();
    WebElement body = waiting().until(d -> d.findElement(By.cssSelector("#delivery-body")));
    assertThat(body.getText()).isEqualTo("{\"ref\":\"o-1\",\"amount\":42.5}");
    assertThat(find("#delivery-preview").getText())
        .contains("contentType")
        .doesNotContain("cloudEvents_");
    screenshot("subscription-delivery-preview");

    paste(find("#sub-transform-data"), "{'ref': }");
    find("#sub-name").sendKeys(unique("bad transform"));
    find("#save-subscription").click();
    WebElement error =
        waiting()
            .until(
                d ->
                    d.findElement(By.cssSelector("[data-error-for='transform.data']"))
                            .getText()
                            .isEmpty()
                        ? null
                        : d.findElement(By.cssSelector("[data-error-for='transform.data']")));
    assertThat(error.getText()).contains("position");
    assertThat(find("#sub-transform-data").getAttribute("aria-invalid")).isEqualTo("true");
    assertThat(driver.getCurrentUrl()).endsWith("#/subscriptions/new");
  }

  @Test
  void theSubscriptionEditorSetsOrderingPerKeyAndShowsABadKeyAtItsField() {
    open("subscriptions/new");
    paste(find("#subscription-form textarea[name=pattern]"), "{\"type\": [\"com.example.order\"]}");
    // The editor keeps what an earlier test typed: every field is cleared first.
    for (String field :
        List.of(
            "#sub-name",
            "#sub-target",
            "#sub-transform-data",
            "#sub-ordering-key",
            "#sub-ordering-max-wait")) {
      find(field).clear();
    }
    new org.openqa.selenium.support.ui.Select(find("#sub-format")).selectByValue("");
    find("#sub-name").sendKeys(unique("ordered"));
    find("#sub-target").sendKeys(webhook.url("/ordered-console"));
    find("#sub-ordering-key").sendKeys("data..orderId");
    find("#sub-ordering-max-wait").sendKeys("PT30S");
    find("#save-subscription").click();
    WebElement error =
        waiting()
            .until(
                d ->
                    d.findElement(By.cssSelector("[data-error-for='ordering.key']"))
                            .getText()
                            .isEmpty()
                        ? null
                        : d.findElement(By.cssSelector("[data-error-for='ordering.key']")));
    assertThat(error.getText()).contains("path into the data");
    assertThat(driver.getCurrentUrl()).endsWith("#/subscriptions/new");

    find("#sub-ordering-key").clear();
    find("#sub-ordering-key").sendKeys("data.orderId");
    find("#save-subscription").click();
    try {
      waiting().until(d -> d.getCurrentUrl().matches(".*#/subscriptions/[0-9a-f-]{36}$"));
    } catch (org.openqa.selenium.TimeoutException e) {
      throw new AssertionError("not saved: " + find("#subscription-form").getText(), e);
    }
    assertThat(find("pre").getText())
        .contains("\"ordering\"")
        .contains("\"key\": \"data.orderId\"")
        .contains("\"maxWait\": \"PT30S\"");
  }

  @Test
  void subscriptionFormShowsTheServicesErrorsAtTheirFields() {
    open("subscriptions/new");
    paste(find("#subscription-form textarea[name=pattern]"), "{\"type\": \"not-a-list\"}");
    find("#sub-name").sendKeys("bad one");
    find("#sub-target").sendKeys("nope:thing");
    find("#save-subscription").click();
    WebElement patternErrors = find("ul.editor-errors[data-error-for=pattern] li");
    assertThat(patternErrors.getText()).contains("is not a valid event pattern");
    assertThat(find("#subscription-form textarea[name=pattern]").getAttribute("aria-invalid"))
        .isEqualTo("true");
    assertThat(driver.getCurrentUrl())
        .as("nothing saved, still editing")
        .endsWith("#/subscriptions/new");
  }

  @Test
  void publishedEventsShowInTheRateChartAndTheLiveTail() throws IOException {
    String type = registerType();
    open("live");
    WebElement tailPattern = find("#live-tail textarea[name=pattern]");
    paste(tailPattern, "{\"type\": [\"" + type + "\"]}");
    find("#live-tail-start").click();
    waiting()
        .until(
            d -> "true".equals(d.findElement(By.id("live-tail-events")).getAttribute("data-open")));

    int n = 20;
    for (int i = 0; i < n; i++) {
      assertThat(api.publish(event("live-" + i, type, 100 + i)).status()).isEqualTo(202);
    }
    waiting()
        .until(
            d ->
                d.findElements(By.cssSelector("#live-tail-events li[data-type='" + type + "']"))
                        .size()
                    == n);
    List<WebElement> items = driver.findElements(By.cssSelector("#live-tail-events li"));
    assertThat(items.get(0).getAttribute("data-id"))
        .as("newest first")
        .isEqualTo("live-" + (n - 1));
    assertThat(find("#live-tail-status").getText()).contains(n + " received");

    // The rate chart's table (the canvas's text alternative) shows the type with every event
    // counted.
    waiting()
        .until(
            d ->
                d.findElements(
                            By.cssSelector(
                                "#chart-in-summary tr[data-series='"
                                    + type
                                    + "'] td[data-total='"
                                    + n
                                    + "']"))
                        .size()
                    == 1);
    assertThat(driver.findElements(By.cssSelector("#chart-in-canvas canvas")))
        .as("uPlot drew the chart")
        .isNotEmpty();
    screenshot("live");
    find("#live-tail-stop").click();
  }

  @Test
  void theLivePageBreaksEachPathsLatencyIntoHops() throws IOException {
    String type = registerType();
    String path = "/" + unique("hops");
    Response sub =
        api.postJson(
            "/api/v1/subscriptions",
            """
        {"name": "%s", "pattern": {"type": ["%s"]}, "target": "%s"}"""
                .formatted(unique("hops"), type, webhook.url(path)));
    assertThat(sub.status()).as(sub.body()).isEqualTo(201);
    // The producer's time is 1.5 s before the post: the transport wait of the REST path.
    String time =
        java.time.OffsetDateTime.now(java.time.ZoneOffset.UTC)
            .minusNanos(1_500_000_000L)
            .toString();
    for (int i = 0; i < 5; i++) {
      String timed =
          event(unique("hop"), type, i)
              .replace("\"type\":", "\"time\": \"" + time + "\", \"type\":");
      assertThat(api.publish(timed).status()).isEqualTo(202);
    }
    await().atMost(WAIT).until(() -> webhook.calls(path).size() == 5);

    open("live");
    String row = "#live-hops .hop-row[data-path='rest → http']";
    waiting()
        .until(
            d ->
                d.findElements(By.cssSelector(row + " .hop[data-hop]")).stream()
                    .map(e -> e.getAttribute("data-hop"))
                    .toList()
                    .containsAll(List.of("transport", "ingest", "route", "send")));
    // The bar shows the stats' mean per hop (other tests' events share the window, so the figure
    // is the API's, not this test's alone); the producer's back-dated time makes it positive.
    // The page and the API read the same sampled window, but not at the same instant (samples roll
    // in and out between the two reads): retry until one read of each agrees.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              double transportMs =
                  Double.parseDouble(
                      find(row + " .hop[data-hop='transport']").getAttribute("data-ms"));
              Response stats = api.get("/api/v1/stats?window=5m");
              assertThat(stats.status()).isEqualTo(200);
              double apiMs = stats.json().get("hops").get("transport").get("rest").asDouble();
              assertThat(transportMs)
                  .as("mean transport wait (ms)")
                  .isPositive()
                  .isCloseTo(apiMs, within(0.01 * apiMs + 0.01));
            });
    assertThat(find(row + " .hop-total").getText()).endsWith("ms");
    ((JavascriptExecutor) driver)
        .executeScript("document.getElementById('live-hops').scrollIntoView()");
    screenshot("live-hops");
  }

  @Test
  void ruleWithASyntaxErrorShowsTheErrorAtItsLine() throws IOException {
    open("rules/new");
    String name = unique("console-rule");
    find("#rule-name").sendKeys(name);
    WebElement drl = find("#rule-form textarea[name=drl]");
    paste(
        drl,
        """
        rule "high reading"
        when
          $e : Event( type == "com.example.meter.reading", number("value") > 90
        then
          actions.run("log", Map.of("event", $e));
        end
        """);
    find("#save-rule").click();
    WebElement marked =
        waiting().until(d -> d.findElement(By.cssSelector("#rule-form .gutter li.error")));
    assertThat(marked.getAttribute("data-line")).isEqualTo("4");
    assertThat(find("#rule-form .code .marks .band").getAttribute("data-line")).isEqualTo("4");
    WebElement message = find("#rule-form ul.editor-errors li");
    assertThat(message.getText()).startsWith("Line 4").contains("then");
    assertThat(drl.getAttribute("aria-invalid")).isEqualTo("true");
    screenshot("rule-error");
    assertThat(api.get("/api/v1/rules/" + name).status()).as("nothing was saved").isEqualTo(404);

    // The message's button takes the caret to the line.
    message.findElement(By.tagName("button")).click();
    Long caretLine =
        (Long)
            ((JavascriptExecutor) driver)
                .executeScript(
                    "const t = arguments[0]; return t.value.slice(0, t.selectionStart).split('\\n').length;",
                    drl);
    assertThat(caretLine).isEqualTo(4L);

    paste(drl, drl.getAttribute("value").replace("> 90\n", "> 90 )\n"));
    find("#save-rule").click();
    waiting().until(d -> d.getCurrentUrl().endsWith("#/rules/" + name));
    find("#rule-executions");
    assertThat(api.get("/api/v1/rules/" + name).json().get("version").asLong()).isEqualTo(1);
    open("rules");
    screenshot("rules");
  }

  @Test
  void capacityPageShowsThePathTheTrafficTook() throws IOException {
    String type = registerType();
    String path = "/" + unique("capacity");
    assertThat(
            api.postJson(
                    "/api/v1/subscriptions",
                    """
        {"name": "%s", "pattern": {"type": ["%s"]}, "target": "%s"}"""
                        .formatted(unique("capacity"), type, webhook.url(path)))
                .status())
        .isEqualTo(201);
    for (int i = 0; i < 20; i++) {
      assertThat(api.publish(event(unique("cap"), type, i)).status()).isEqualTo(202);
    }
    await().atMost(WAIT).until(() -> webhook.calls(path).size() == 20);

    open("capacity");
    // REST in, webhook (http) out; the page refreshes every five seconds until the sampler has it.
    // The row can show before the sampler has counted the traffic (0.0): wait for the refresh.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              WebElement row = find("tr[data-path='http>http']");
              List<WebElement> cells = row.findElements(By.cssSelector("td"));
              assertThat(Double.parseDouble(cells.get(2).getText())).as("events/s").isPositive();
              assertThat(Double.parseDouble(cells.get(3).getText()))
                  .as("CPU µs/event")
                  .isPositive();
              assertThat(cells.get(4).getText()).as("headroom").matches("\\d+\\.\\d");
            });
    assertThat(find("#cap-cpu").getText()).contains("%").contains("cores");
    assertThat(find("#cap-bottleneck").getText()).contains("CPU");
    assertThat(find("#cap-other").getText())
        .matches("(–|\\d+\\.\\d\\d cores \\+ \\d+\\.\\d µs per event .*)");
    screenshot("capacity");
    assertNoHorizontalScroll("capacity");
  }

  @Test
  void deadLetterIsRedrivenFromTheConsole() throws IOException {
    String type = registerType();
    String path = "/" + unique("dead");
    Response sub =
        api.postJson(
            "/api/v1/subscriptions",
            """
        {"name": "%s", "pattern": {"type": ["%s"]}, "target": "%s", "retry": {"maxAttempts": 1}}"""
                .formatted(unique("redrive"), type, webhook.url(path)));
    assertThat(sub.status()).as(sub.body()).isEqualTo(201);
    String id = sub.json().get("id").asText();
    webhook.failNext(path, 1);
    String eventId = unique("dl");
    assertThat(api.publish(event(eventId, type, 7)).status()).isEqualTo(202);
    await()
        .atMost(WAIT)
        .until(
            () ->
                api.get("/api/v1/dead-letters?subscription=" + id).json().get("items").size() == 1);
    assertThat(webhook.calls(path)).isEmpty();

    open("dead-letters/" + id);
    WebElement row = find("tr[data-event-id='" + eventId + "']");
    assertThat(find("#dl-count").getText()).isEqualTo("1 dead letters");
    screenshot("dead-letters");
    row.findElement(By.cssSelector("input[type=checkbox]")).click();
    find("#dl-redrive-selected").click();
    find("#dl-empty");
    assertThat(find("#dl-status").getText()).isEqualTo("Redriven: 1.");
    await().atMost(WAIT).until(() -> webhook.calls(path).size() == 1);
    assertThat(webhook.calls(path).get(0).body()).contains(eventId);
  }

  @Test
  void archivedEventsAreListedAndBrowsed() throws IOException {
    String type = registerType();
    String name = unique("console-archive");
    Response created =
        api.postJson(
            "/api/v1/archives",
            """
        {"name": "%s", "pattern": {"type": ["%s"]}, "retention": "P1D"}"""
                .formatted(name, type));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    for (int i = 0; i < 3; i++) {
      assertThat(api.publish(event("ar-" + i, type, i)).status()).isEqualTo(202);
    }
    await()
        .atMost(WAIT)
        .until(() -> api.get("/api/v1/archives/" + name).json().get("eventCount").asLong() == 3);

    open("archives");
    WebElement row = find("tr[data-archive='" + name + "']");
    assertThat(row.getAttribute("data-events")).isEqualTo("3");
    row.findElement(By.tagName("button")).click();
    waiting()
        .until(
            d ->
                d.findElements(By.cssSelector("#archive-events-list tr[data-event-id^='ar-']"))
                        .size()
                    == 3);
    screenshot("archives");
  }

  @Test
  void detectorWithAnEplErrorShowsItAtItsLine() throws IOException {
    String type = registerType();
    open("detectors/new");
    find("#det-name").sendKeys(unique("console-detector"));
    paste(find("#det-inputs"), "R = " + type);
    paste(find("#detector-form textarea[name=epl]"), "select data.meter as meter\nfrm R");
    find("#save-detector").click();
    // Whatever the service answered shows in the form; the EPL error must be marked at its line.
    waiting()
        .until(
            d ->
                !d.findElements(By.cssSelector("#detector-form [aria-invalid='true']")).isEmpty()
                    || !d.findElement(By.id("det-status")).getText().isBlank());
    screenshot("detector-error");
    WebElement marked =
        driver.findElements(By.cssSelector("#detector-form .gutter li.error")).stream()
            .findFirst()
            .orElseThrow(
                () ->
                    new AssertionError(
                        "no line marked; the form says: " + find("#detector-form").getText()));
    assertThat(marked.getAttribute("data-line")).isIn("1", "2");
    assertThat(find("#detector-form ul.editor-errors li").getText()).startsWith("Line ");
  }

  @Test
  void everyPageIsReadableWideAndNarrow() throws IOException {
    String type = registerType();
    assertThat(
            api.postJson(
                    "/api/v1/detectors",
                    """
        {"name": "%s", "inputs": {"R": "%s"}, "epl": "select data.meter as meter, avg(data.value) as avgValue from R#length_batch(3) group by data.meter", "emits": "com.example.console.overload"}"""
                        .formatted(unique("overload"), type))
                .status())
        .isEqualTo(201);
    Map<String, String> pages = new java.util.LinkedHashMap<>();
    pages.put("live", "Live");
    pages.put("types", "Event types");
    pages.put("subscriptions", "Subscriptions");
    pages.put("subscriptions/new", "New subscription");
    pages.put("dead-letters", "Dead letters");
    pages.put("detectors", "Detectors");
    pages.put("rules", "Rules");
    pages.put("channels", "Inbound channels");
    pages.put("archives", "Archives and replays");
    pages.put("cluster", "Cluster");
    pages.put("capacity", "Capacity");
    for (int width : new int[] {WIDE, NARROW}) {
      resize(width);
      for (Map.Entry<String, String> page : pages.entrySet()) {
        open(page.getKey());
        waiting()
            .until(
                d -> page.getValue().equals(d.findElement(By.cssSelector("#page h1")).getText()));
        // Focus moves to the page heading, so keyboard users start on the new page.
        waiting().until(d -> "H1".equals(d.switchTo().activeElement().getTagName().toUpperCase()));
        if (page.getKey().equals("archives")) {
          find("#archive-form");
        }
        if (page.getKey().equals("channels")) {
          find("#channels-list table");
        }
        if (page.getKey().equals("cluster")) {
          // The mode in force, with the setting that chooses it.
          assertThat(find("#cl-mode").getText())
              .startsWith("single node")
              .contains("activity.cluster.enabled=false");
        }
        String file = page.getKey().replace('/', '-') + (width == WIDE ? "" : "-narrow");
        screenshot(file);
        assertNoHorizontalScroll(file);
      }
    }
  }
}
