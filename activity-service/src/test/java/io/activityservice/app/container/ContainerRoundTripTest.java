package io.activityservice.app.container;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.activityservice.app.support.Api;
import jakarta.jms.Connection;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The docker-compose.yml set-up under Testcontainers: an ActiveMQ Classic container configured with
 * infra/docker/activemq.xml (virtual topics) and a LocalStack 4.3.0 container, the service (profile
 * "localstack") pointed at both. A plain JMS client publishes a structured CloudEvent on the
 * service's inbound topic {@code activity.events.in}; a subscription routes it to an SQS queue,
 * where an SQS client receives it with the same id and data.
 *
 * <p>Skipped with a reason when there is no Docker engine (as on the project's CI machines).
 */
@EnabledIfDockerAvailable
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "spring.profiles.active=localstack",
      "spring.datasource.url=jdbc:h2:mem:container-round-trip;DB_CLOSE_DELAY=-1",
      "activity.channels.sqs.create-queues=true",
      "activity.channels.sqs.wait-time=2s"
    })
class ContainerRoundTripTest {

  static final DockerImageName LOCALSTACK = DockerImageName.parse("localstack/localstack:4.3.0");
  static final DockerImageName ACTIVEMQ = DockerImageName.parse("apache/activemq-classic:6.1.7");

  // Started once per JVM; Testcontainers' Ryuk removes them when the JVM exits (after Spring closed
  // the context).
  static LocalStackContainer localstack;
  static GenericContainer<?> activemq;

  @DynamicPropertySource
  static void containers(DynamicPropertyRegistry registry) {
    if (localstack == null) {
      localstack = new LocalStackContainer(LOCALSTACK).withServices("sqs");
      activemq =
          new GenericContainer<>(ACTIVEMQ)
              .withCopyFileToContainer(
                  MountableFile.forHostPath(projectFile("infra/docker/activemq.xml")),
                  "/opt/apache-activemq/conf/activemq.xml")
              .withExposedPorts(61616)
              .waitingFor(Wait.forListeningPort().withStartupTimeout(Duration.ofMinutes(2)));
      localstack.start();
      activemq.start();
    }
    registry.add("activity.channels.jms.broker-url", ContainerRoundTripTest::brokerUrl);
    registry.add("activity.channels.sqs.endpoint", () -> localstack.getEndpoint().toString());
  }

  @LocalServerPort int port;

  @Test
  void jmsTopicToSqsQueueThroughTheService() throws Exception {
    String run = UUID.randomUUID().toString().substring(0, 8);
    String type = "com.example.container." + run;
    String queue = "container-out-" + run;
    try (SqsAsyncClient sqs = sqs()) {
      String queueUrl = sqs.createQueue(b -> b.queueName(queue)).join().queueUrl();
      Api.Response created =
          new Api(port)
              .postJson(
                  "/api/v1/subscriptions",
                  """
          {"name": "container %s", "pattern": {"type": ["%s"]}, "target": "sqs:%s"}"""
                      .formatted(run, type, queue));
      assertThat(created.status()).as(created.body()).isEqualTo(201);

      String id = "container-" + run;
      String data = "{\"run\":\"" + run + "\",\"value\":42}";
      String body =
          """
          {"specversion":"1.0","id":"%s","source":"/container-test","type":"%s",\
          "datacontenttype":"application/json","data":%s}"""
              .formatted(id, type, data);
      AtomicReference<JsonNode> received = new AtomicReference<>();
      ObjectMapper json = new ObjectMapper();
      long[] lastPublish = {System.nanoTime() - Duration.ofSeconds(10).toNanos()};
      await()
          .atMost(Duration.ofSeconds(90))
          .until(
              () -> {
                // A virtual topic copies a message only to consumer queues that exist when it is
                // published: publish
                // again every 5 s until it arrives (the service suppresses duplicates by source and
                // id).
                if (System.nanoTime() - lastPublish[0] > Duration.ofSeconds(5).toNanos()) {
                  publishOnTopic("activity.events.in", body);
                  lastPublish[0] = System.nanoTime();
                }
                List<Message> messages =
                    sqs.receiveMessage(
                            b -> b.queueUrl(queueUrl).waitTimeSeconds(2).maxNumberOfMessages(10))
                        .join()
                        .messages();
                for (Message m : messages) {
                  JsonNode event = json.readTree(m.body());
                  if (id.equals(event.path("id").asText())) {
                    received.set(event);
                  }
                }
                return received.get() != null;
              });
      assertThat(received.get().path("type").asText()).isEqualTo(type);
      assertThat(received.get().path("data")).isEqualTo(json.readTree(data));
    }
  }

  static void publishOnTopic(String topic, String structuredEvent) throws Exception {
    ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(brokerUrl());
    try (Connection connection = factory.createConnection()) {
      Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
      TextMessage message = session.createTextMessage(structuredEvent);
      session.createProducer(session.createTopic(topic)).send(message);
    }
  }

  static String brokerUrl() {
    return "tcp://" + activemq.getHost() + ":" + activemq.getMappedPort(61616);
  }

  static SqsAsyncClient sqs() {
    URI endpoint = localstack.getEndpoint();
    return SqsAsyncClient.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
        .build();
  }

  /**
   * A file of the repository, found by walking up from the working directory (the module
   * directory).
   */
  static Path projectFile(String relative) {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path file = dir.resolve(relative);
      if (Files.isRegularFile(file)) {
        return file;
      }
    }
    throw new IllegalStateException(relative + " not found above " + Path.of("").toAbsolutePath());
  }
}
