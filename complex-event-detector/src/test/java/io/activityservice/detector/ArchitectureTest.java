package io.activityservice.detector;

import io.activityservice.architecture.DomainModuleArchitectureTest;

/**
 * The project's architecture rules on complex-event-detector's production classes (the tests are
 * inherited).
 */
class ArchitectureTest extends DomainModuleArchitectureTest {}
