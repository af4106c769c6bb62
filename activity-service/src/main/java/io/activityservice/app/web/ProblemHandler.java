package io.activityservice.app.web;

import io.activityservice.events.problem.ConflictException;
import io.activityservice.events.problem.ForbiddenException;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.NotFoundException;
import io.activityservice.events.problem.OverloadedException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.resource.NoResourceFoundException;

/**
 * Turns every error into an RFC 9457 {@code application/problem+json} answer. Input errors carry
 * {@code field} (the first offending field) and {@code errors} (all of them, each field + reason).
 */
@RestControllerAdvice
class ProblemHandler {

  private static final Logger log = LoggerFactory.getLogger(ProblemHandler.class);

  @ExceptionHandler(InvalidInputException.class)
  ResponseEntity<ProblemDetail> invalid(InvalidInputException e) {
    List<Map<String, String>> errors =
        e.errors().stream().map(fe -> Map.of("field", fe.field(), "reason", fe.reason())).toList();
    String field = e.errors().isEmpty() ? "body" : e.errors().get(0).field();
    return problem(HttpStatus.BAD_REQUEST, "Invalid input", e.getMessage(), field, errors);
  }

  @ExceptionHandler(ForbiddenException.class)
  ResponseEntity<ProblemDetail> forbidden(ForbiddenException e) {
    return problem(HttpStatus.FORBIDDEN, "Forbidden", e.getMessage(), e.field(), null);
  }

  @ExceptionHandler(NotFoundException.class)
  ResponseEntity<ProblemDetail> notFound(NotFoundException e) {
    return problem(HttpStatus.NOT_FOUND, "Not found", e.getMessage(), null, null);
  }

  @ExceptionHandler(ConflictException.class)
  ResponseEntity<ProblemDetail> conflict(ConflictException e) {
    return problem(HttpStatus.CONFLICT, "Conflict", e.getMessage(), e.field(), null);
  }

  @ExceptionHandler(OverloadedException.class)
  ResponseEntity<ProblemDetail> overloaded(OverloadedException e) {
    ResponseEntity<ProblemDetail> r =
        problem(HttpStatus.SERVICE_UNAVAILABLE, "Overloaded", e.getMessage(), null, null);
    return ResponseEntity.status(r.getStatusCode())
        .header(HttpHeaders.RETRY_AFTER, "1")
        .body(r.getBody());
  }

  @ExceptionHandler(PayloadTooLargeException.class)
  ResponseEntity<ProblemDetail> tooLarge(PayloadTooLargeException e) {
    return problem(HttpStatus.CONTENT_TOO_LARGE, "Body too large", e.getMessage(), "body", null);
  }

  /**
   * A body that could not be read: its size (413), a value of the wrong type, or malformed JSON.
   * The answer names the field by its JSON path ({@code retry.maxAttempts}, {@code roles[1]}) and
   * what was expected in plain words ({@code an integer}, {@code an array of strings}), never a
   * Java class.
   */
  @ExceptionHandler(HttpMessageNotReadableException.class)
  ResponseEntity<ProblemDetail> unreadable(HttpMessageNotReadableException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof PayloadTooLargeException tooLarge) {
        return tooLarge(tooLarge);
      }
      if (t instanceof InvalidInputException invalid) {
        return invalid(invalid);
      }
      if (t.getCause() == t) {
        break;
      }
    }
    Throwable cause = e.getMostSpecificCause();
    String field = "body";
    if (cause instanceof tools.jackson.databind.DatabindException de && !de.getPath().isEmpty()) {
      field =
          de.getPath().stream()
              .map(
                  r -> r.getPropertyName() != null ? r.getPropertyName() : "[" + r.getIndex() + "]")
              .reduce((a, b) -> b.startsWith("[") ? a + b : a + "." + b)
              .orElse("body");
    }
    String reason;
    if (cause instanceof tools.jackson.databind.exc.MismatchedInputException mismatch
        && mismatch.getTargetType() != null) {
      reason =
          "expected "
              + JsonTypes.describe(mismatch.getTargetType(), mismatch)
              + (mismatch instanceof tools.jackson.databind.exc.InvalidFormatException f
                      && f.getValue() != null
                  ? ", not " + JsonTypes.quote(f.getValue())
                  : "");
    } else if (cause instanceof tools.jackson.core.JacksonException je) {
      reason = JsonTypes.withoutClassNames(je.getOriginalMessage());
    } else {
      reason = "is not readable JSON";
    }
    return problem(
        HttpStatus.BAD_REQUEST,
        "Malformed request body",
        field + ": " + reason,
        field,
        List.of(Map.of("field", field, "reason", String.valueOf(reason))));
  }

  @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
  ResponseEntity<ProblemDetail> mediaType(HttpMediaTypeNotSupportedException e) {
    return problem(
        HttpStatus.UNSUPPORTED_MEDIA_TYPE,
        "Unsupported media type",
        e.getMessage(),
        "Content-Type",
        null);
  }

  @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
  ResponseEntity<ProblemDetail> method(HttpRequestMethodNotSupportedException e) {
    ResponseEntity<ProblemDetail> r =
        problem(HttpStatus.METHOD_NOT_ALLOWED, "Method not allowed", e.getMessage(), null, null);
    // RFC 9110: a 405 lists the methods the resource supports.
    HttpHeaders headers = new HttpHeaders();
    headers.putAll(r.getHeaders());
    if (e.getSupportedHttpMethods() != null) {
      headers.setAllow(e.getSupportedHttpMethods());
    }
    return new ResponseEntity<>(r.getBody(), headers, r.getStatusCode());
  }

  @ExceptionHandler({
    MissingServletRequestParameterException.class,
    MethodArgumentTypeMismatchException.class
  })
  ResponseEntity<ProblemDetail> parameter(Exception e) {
    // Spring's messages name Java types ("value of type 'java.lang.String' to required type
    // 'int'"): say it plainly.
    String field;
    String detail;
    if (e instanceof MissingServletRequestParameterException m) {
      field = m.getParameterName();
      detail = field + ": is required";
    } else {
      MethodArgumentTypeMismatchException mismatch = (MethodArgumentTypeMismatchException) e;
      field = mismatch.getName();
      Class<?> type = mismatch.getRequiredType();
      detail =
          field
              + ": expected "
              + (type == null ? "a value of another type" : JsonTypes.describe(type, null))
              + (mismatch.getValue() == null
                  ? ""
                  : ", not " + JsonTypes.quote(mismatch.getValue()));
    }
    return problem(HttpStatus.BAD_REQUEST, "Invalid parameter", detail, field, null);
  }

  /**
   * Tomcat refuses a query string it cannot parse (e.g. {@code &=x}, a parameter without a name).
   */
  @ExceptionHandler(org.apache.tomcat.util.http.InvalidParameterException.class)
  ResponseEntity<ProblemDetail> query(org.apache.tomcat.util.http.InvalidParameterException e) {
    return problem(
        HttpStatus.BAD_REQUEST,
        "Invalid parameter",
        "the query string is malformed",
        "query",
        null);
  }

  @ExceptionHandler(NoResourceFoundException.class)
  ResponseEntity<ProblemDetail> noResource(NoResourceFoundException e) {
    return problem(HttpStatus.NOT_FOUND, "Not found", e.getMessage(), null, null);
  }

  /**
   * Anything else: a 500 that says nothing about the failure (exception texts can carry URLs with
   * credentials, SQL, internal host names), only an error id that the log line with the stack trace
   * carries too.
   */
  @ExceptionHandler(Exception.class)
  ResponseEntity<ProblemDetail> unexpected(Exception e) {
    String errorId = UUID.randomUUID().toString();
    log.error("unexpected error {}", errorId, e);
    ResponseEntity<ProblemDetail> r =
        problem(
            HttpStatus.INTERNAL_SERVER_ERROR,
            "Internal error",
            "unexpected error; the service log has the details under error id " + errorId,
            null,
            null);
    r.getBody().setProperty("errorId", errorId);
    return r;
  }

  private static ResponseEntity<ProblemDetail> problem(
      HttpStatusCode status,
      String title,
      String detail,
      String field,
      List<Map<String, String>> errors) {
    ProblemDetail p = ProblemDetail.forStatusAndDetail(status, detail);
    p.setTitle(title);
    if (field != null) {
      p.setProperty("field", field);
    }
    if (errors != null) {
      p.setProperty("errors", errors);
    }
    return ResponseEntity.status(status)
        .contentType(org.springframework.http.MediaType.APPLICATION_PROBLEM_JSON)
        .body(p);
  }
}
