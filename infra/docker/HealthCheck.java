import java.net.HttpURLConnection;
import java.net.URI;

/**
 * Container health probe for images without curl or wget (the JRE base image has neither): exits 0 when
 * GET http://127.0.0.1:${SERVER_PORT:-8080}${HEALTHCHECK_PATH:-/actuator/health/liveness} answers 200, else 1.
 * Compiled into the image by the Dockerfile's build stage; used by the Dockerfile HEALTHCHECK and the
 * ECS task definition (infra/aws/service.yaml).
 */
public final class HealthCheck {

  private HealthCheck() {
  }

  public static void main(String[] args) {
    String port = env("SERVER_PORT", "8080");
    String path = args.length > 0 ? args[0] : env("HEALTHCHECK_PATH", "/actuator/health/liveness");
    String url = "http://127.0.0.1:" + port + path;
    try {
      HttpURLConnection connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
      connection.setConnectTimeout(2000);
      connection.setReadTimeout(5000);
      int status = connection.getResponseCode();
      System.out.println(url + " -> " + status);
      System.exit(status == 200 ? 0 : 1);
    } catch (Exception e) {
      System.out.println(url + " -> " + e);
      System.exit(1);
    }
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }
}
