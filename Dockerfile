# syntax=docker/dockerfile:1
# Activity Service image: layered Spring Boot jar on a JRE, non-root, with a health check.
#
#   docker build -t activity-service .                          # builds the jar inside Docker (needs Maven Central)
#   ./mvnw -B -DskipTests package && \
#   docker build --build-arg JAR_SOURCE=prebuilt -t activity-service .   # uses activity-service/target/*.jar
#
# Run: docker run -p 8080:8080 activity-service   (embedded defaults; see docker-compose.yml for LocalStack +
# ActiveMQ, infra/aws/service.yaml for ECS). JAR_VARIANT=lean (docker-compose.yml, infra/deploy.sh aws) takes the
# jar without the embedded ActiveMQ broker and ElasticMQ, for deployments that set external brokers
# (ACTIVITY_CHANNELS_JMS_BROKER_URL and an SQS endpoint or AWS). Configuration by environment variables (SPRING_PROFILES_ACTIVE,
# SPRING_DATASOURCE_URL, ACTIVITY_CHANNELS_JMS_BROKER_URL, ...), see README "Configuration". The API needs a key:
# -e ACTIVITY_SECURITY_BOOTSTRAP_ADMIN_KEY=..., else one is generated into /app/data/admin.key at first start;
# the health probe below needs none.

ARG JAVA_VERSION=17
# "source" (default): build with ./mvnw in Docker; "prebuilt": take activity-service/target/*.jar from the context.
ARG JAR_SOURCE=source
# "quick-start" (default): the jar with the embedded servers; "lean": activity-service-*-lean.jar, without them.
ARG JAR_VARIANT=quick-start

# ---------------------------------------------------------------- the jar, built in Docker
FROM eclipse-temurin:${JAVA_VERSION}-jdk AS jar-source
ARG JAR_VARIANT
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/root/.m2 \
    ./mvnw -B -q -DskipTests -pl activity-service -am package \
 && mkdir /jar && cp activity-service/target/activity-service-*.jar /jar/ \
 && /bin/sh infra/docker/pick-jar.sh "$JAR_VARIANT" /jar

# ---------------------------------------------------------------- the jar, built on the host
FROM eclipse-temurin:${JAVA_VERSION}-jdk AS jar-prebuilt
ARG JAR_VARIANT
COPY activity-service/target/activity-service-*.jar /jar/
COPY infra/docker/pick-jar.sh /tmp/
RUN /bin/sh /tmp/pick-jar.sh "$JAR_VARIANT" /jar

# ---------------------------------------------------------------- layers + health probe
FROM jar-${JAR_SOURCE} AS extract
WORKDIR /work
# Spring Boot 4 tools jarmode: one directory per layer, with the launcher (JarLauncher).
RUN java -Djarmode=tools -jar /jar/app.jar extract --layers --launcher --destination /work/extracted
COPY infra/docker/HealthCheck.java /work/
RUN javac --release 17 -d /work/healthcheck /work/HealthCheck.java

# ---------------------------------------------------------------- runtime
FROM eclipse-temurin:${JAVA_VERSION}-jre
RUN groupadd --system --gid 10001 activity \
 && useradd --system --uid 10001 --gid activity --home-dir /app --shell /usr/sbin/nologin activity \
 && mkdir -p /app/data && chown -R activity:activity /app
WORKDIR /app
# Least to most frequently changing, one image layer each.
COPY --from=extract /work/extracted/dependencies/ ./
COPY --from=extract /work/extracted/spring-boot-loader/ ./
COPY --from=extract /work/extracted/snapshot-dependencies/ ./
COPY --from=extract /work/extracted/application/ ./
COPY --from=extract /work/healthcheck/ /opt/healthcheck/
USER 10001:10001
# ./data: the H2 database and KahaDB of the embedded defaults (mount a volume; unused with PostgreSQL and an
# external broker, as on AWS).
VOLUME ["/app/data"]
ENV SERVER_PORT=8080
EXPOSE 8080
# No curl/wget in the JRE image: a compiled Java probe (also used by the ECS task definition).
HEALTHCHECK --interval=30s --timeout=10s --start-period=120s --retries=3 \
  CMD ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-Xmx16m", "-cp", "/opt/healthcheck", "HealthCheck"]
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "org.springframework.boot.loader.launch.JarLauncher"]
