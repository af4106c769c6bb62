/**
 * The lifecycle of user definitions that run inside the service, detectors and rule sets alike:
 * validate, compile, store, apply on every replica, replace, delete, partition ownership and the
 * author's scope ({@link io.activityservice.events.definition.DefinitionLifecycle}), and the events
 * they derive ({@link io.activityservice.events.definition.DerivedEvents}). A module supplies only
 * what differs: its table ({@link io.activityservice.events.definition.DefinitionStore}) and its
 * engine ({@link io.activityservice.events.definition.DefinitionRuntime}).
 */
package io.activityservice.events.definition;
