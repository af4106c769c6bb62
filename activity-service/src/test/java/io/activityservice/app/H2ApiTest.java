package io.activityservice.app;

import org.springframework.test.context.TestPropertySource;

/** The API on the embedded default database: H2 in file mode. */
@TestPropertySource(
    properties =
        "spring.datasource.url=jdbc:h2:file:./target/test-data/h2-api-${random.uuid};DB_CLOSE_ON_EXIT=FALSE")
class H2ApiTest extends AbstractApiTest {}
