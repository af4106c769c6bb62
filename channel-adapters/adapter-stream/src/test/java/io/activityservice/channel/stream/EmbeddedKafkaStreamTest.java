package io.activityservice.channel.stream;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.kafka.test.context.EmbeddedKafka;

/**
 * A Spring Boot application (all auto-configuration, incl. Spring Cloud Stream and this module) on
 * a real embedded KRaft Kafka broker. Test classes with this annotation share the context and the
 * broker. Topics get 3 partitions.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest(
    classes = EmbeddedKafkaStreamTest.App.class,
    properties = {
      "spring.cloud.stream.kafka.binder.brokers=${spring.embedded.kafka.brokers}",
      "spring.cloud.stream.kafka.binder.min-partition-count=3",
      // ChannelAdapterContract.CONTRACT_REDELIVERY: exact delays the contract's redelivery tests
      // check
      "activity.channels.kafka.redelivery.initial=1s",
      "activity.channels.kafka.redelivery.max=8s",
      "activity.channels.kafka.redelivery.jitter=false",
    })
@EmbeddedKafka(partitions = 3)
@interface EmbeddedKafkaStreamTest {

  /** The test application. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  class App {}
}
