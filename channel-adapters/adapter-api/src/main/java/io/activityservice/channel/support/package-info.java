/**
 * Small helpers every module shares (futures, daemon threads), kept in the Spring-free SPI module
 * so that each idea has one implementation. Not part of the channel SPI itself.
 */
package io.activityservice.channel.support;
