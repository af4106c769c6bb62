package io.activityservice.app.security.internal;

import io.activityservice.app.security.ApiKeyService;
import io.activityservice.app.security.SecurityProperties;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure an admin can get in: the bootstrap key from configuration, or a stored admin key, or
 * (first start) a generated admin key written to {@code activity.security.admin-key-file}. Logs
 * where the key is, never the key.
 */
public final class AdminBootstrap {

  private static final Logger log = LoggerFactory.getLogger(AdminBootstrap.class);

  private AdminBootstrap() {}

  /** Runs once at start-up, after the database migrations. */
  public static void run(SecurityProperties props, ApiKeyService keys, String port) {
    if (!props.enabled()) {
      log.warn(
          """

          ****************************************************************************************************
          *  activity.security.enabled=false: AUTHENTICATION IS OFF.                                          *
          *  Anyone who can reach this service (port {}) can publish, read every subscription and change      *
          *  everything: types, subscriptions, channels, detectors, rules (which run code). Local trials only.*
          ****************************************************************************************************""",
          port);
      return;
    }
    if (props.bootstrapAdminKey() != null) {
      log.info("admin key: activity.security.bootstrap-admin-key (key id 'bootstrap')");
      return;
    }
    if (keys.hasActiveAdminKey()) {
      log.info("admin key: stored (activity.security.bootstrap-admin-key is not set)");
      return;
    }
    Path file = props.adminKeyFile().toAbsolutePath().normalize();
    ApiKeyService.CreatedKey created =
        keys.create("admin (generated at first start)", List.of("admin"), List.of(), "system");
    boolean ownerOnly;
    try {
      ownerOnly = AdminKeyFile.write(file, created.secret());
    } catch (IOException e) {
      keys.revoke(created.key().id());
      throw new UncheckedIOException(
          "no admin key is configured or stored, and the generated one could not be"
              + " written to "
              + file
              + " (activity.security.admin-key-file): "
              + e.getMessage()
              + "; set activity.security.bootstrap-admin-key or make that directory writable",
          e);
    }
    log.warn(
        "No admin key configured (activity.security.bootstrap-admin-key) or stored: generated admin key {}"
            + " and wrote it to {}{}. Send it as 'Authorization: Bearer <contents of that file>'; create further keys"
            + " with POST /api/v1/api-keys.",
        created.key().id(),
        file,
        ownerOnly
            ? " (readable by this user only)"
            : " (this file system has no POSIX permissions: protect it)");
  }
}
