package io.activityservice.app;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** The Activity Service: REST API, wiring and embedded defaults. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class ActivityServiceApplication {

  public static void main(String[] args) {
    SpringApplication.run(ActivityServiceApplication.class, args);
  }
}
