package io.activityservice.app.console;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The operator console: static files under {@code /console/} (no data in them; every page fetches
 * the REST API with the bearer token the operator signed in with). The event stream behind its live
 * tail and the statistics behind its charts are configured in their packages ({@code
 * StreamConfiguration}, {@code StatsConfiguration}).
 */
@Configuration(proxyBeanMethods = false)
public class ConsoleConfiguration implements WebMvcConfigurer {

  /** The chart library's webjar. */
  private static final String UPLOT_POM = "META-INF/maven/org.webjars.npm/uplot/pom.properties";

  @Override
  public void addViewControllers(ViewControllerRegistry registry) {
    registry.addRedirectViewController("/console", "/console/");
    registry.addViewController("/console/").setViewName("forward:/console/index.html");
  }

  @Override
  public void addResourceHandlers(ResourceHandlerRegistry registry) {
    // Chart library from its webjar, under /console/ like every other file of the console.
    registry
        .addResourceHandler("/console/vendor/uplot/**")
        .addResourceLocations(
            "classpath:/META-INF/resources/webjars/uplot/" + webjarVersion(UPLOT_POM) + "/dist/");
  }

  /**
   * The version of a webjar on the classpath, from its Maven metadata (so the pom alone pins it).
   */
  static String webjarVersion(String pomProperties) {
    try (java.io.InputStream in =
        ConsoleConfiguration.class.getClassLoader().getResourceAsStream(pomProperties)) {
      if (in == null) {
        throw new IllegalStateException(
            pomProperties
                + " is not on the classpath: the console's chart library is"
                + " missing");
      }
      java.util.Properties p = new java.util.Properties();
      p.load(in);
      return p.getProperty("version");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * Strict headers for the console's files: only its own scripts, styles and API; no framing, no
   * referrer.
   */
  @Bean
  FilterRegistrationBean<OncePerRequestFilter> consoleHeaders() {
    FilterRegistrationBean<OncePerRequestFilter> bean =
        new FilterRegistrationBean<>(
            new OncePerRequestFilter() {
              @Override
              protected void doFilterInternal(
                  HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                  throws ServletException, IOException {
                response.setHeader(
                    "Content-Security-Policy",
                    "default-src 'self'; script-src 'self'; style-src 'self'; "
                        + "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
                        + "frame-ancestors 'none'");
                response.setHeader("X-Content-Type-Options", "nosniff");
                response.setHeader("Referrer-Policy", "no-referrer");
                response.setHeader("X-Frame-Options", "DENY");
                chain.doFilter(request, response);
              }
            });
    bean.addUrlPatterns("/console", "/console/*");
    bean.setName("consoleHeaders");
    return bean;
  }
}
