package io.activityservice.app.security;

import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The audit log, for admins: {@code GET /api/v1/audit?limit=100&cursor=…}, newest first. */
@RestController
@RequestMapping("/api/v1/audit")
class AuditController {

  private final AuditLog audit;

  AuditController(AuditLog audit) {
    this.audit = audit;
  }

  @GetMapping
  AuditLog.Page list(
      @RequestParam(required = false) String cursor,
      @Parameter(
              schema =
                  @Schema(type = "integer", minimum = "1", maximum = "1000", defaultValue = "100"))
          @RequestParam(defaultValue = "100")
          int limit) {
    return audit.page(cursor, limit);
  }
}
