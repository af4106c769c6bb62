package io.activityservice.rules;

import io.activityservice.architecture.DomainModuleArchitectureTest;

/**
 * The project's architecture rules on rule-execution's production classes (the tests are
 * inherited).
 */
class ArchitectureTest extends DomainModuleArchitectureTest {}
