package io.activityservice.app.archive;

/** Archive and replay over the REST API on H2 (the embedded default). */
class H2ArchiveApiTest extends AbstractArchiveApiTest {}
