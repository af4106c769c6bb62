package io.activityservice.perf.peer.camel;

import jakarta.jms.ConnectionFactory;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.messaginghub.pooled.jms.JmsPoolConnectionFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.SqsClientBuilder;

/**
 * The clients Camel's components are given (each the only bean of its type, so Camel autowires it
 * into the {@code jms} and {@code aws2-sqs} components): a pooled JMS connection factory over an
 * ActiveMQ one, and a synchronous SQS client (camel-aws2-sqs's own client type) pointed at
 * LocalStack when an endpoint is given.
 */
@Configuration
public class PeerClients {

  /**
   * The pooled connection factory (messaginghub pooled-jms, as Camel's documentation recommends).
   */
  @Bean(destroyMethod = "stop")
  @ConditionalOnProperty("peer.jms-broker-url")
  ConnectionFactory jmsConnectionFactory(PeerProperties props) {
    JmsPoolConnectionFactory pool = new JmsPoolConnectionFactory();
    pool.setConnectionFactory(new ActiveMQConnectionFactory(props.jmsBrokerUrl()));
    pool.setMaxConnections(props.jmsMaxConnections());
    return pool;
  }

  /** The SQS client. */
  @Bean(destroyMethod = "close")
  SqsClient sqsClient(PeerProperties props) {
    SqsClientBuilder b = SqsClient.builder().region(Region.of(props.sqsRegion()));
    if (props.sqsEndpoint() != null) {
      b.endpointOverride(props.sqsEndpoint())
          .credentialsProvider(
              StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")));
    } else {
      b.credentialsProvider(DefaultCredentialsProvider.builder().build());
    }
    return b.build();
  }
}
