package io.activityservice.events;

import io.activityservice.architecture.DomainModuleArchitectureTest;

/**
 * The project's architecture rules on event-service's production classes (the tests are inherited).
 */
class ArchitectureTest extends DomainModuleArchitectureTest {}
