package io.activityservice.app.web;

import io.activityservice.app.cluster.ConfigApplyFilter;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.media.ArraySchema;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.parameters.RequestBody;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Makes the generated OpenAPI document say what the server really answers, so that clients (and the
 * schemathesis run in {@code .ci/schemathesis.sh}) can rely on it:
 *
 * <ul>
 *   <li>every error an operation can give, as {@code application/problem+json} with the {@code
 *       Problem} schema ({@link ProblemHandler}, and the security chain's 401/403);
 *   <li>optional properties may be {@code null} (records are written with their null components);
 *   <li>{@code PUT} creates (201) as well as replaces (200);
 *   <li>{@code POST /api/v1/events} takes CloudEvents in structured or batch mode (binary mode has
 *       no body schema).
 * </ul>
 */
@Configuration(proxyBeanMethods = false)
public class OpenApiContract {

  static final String PROBLEM = "Problem";

  /**
   * A path segment the HTTP firewall lets through: no '/', '\\', ';', '%', CR, LF, NUL or line
   * separators, and not '.' or '..' (StrictHttpFirewall refuses those with 400 before any endpoint
   * sees them).
   */
  static final String PATH_SEGMENT = "^(?!\\.\\.?$)[^/\\\\;%\\r\\n\\u0000\\u2028\\u2029]+$";

  private static final String PROBLEM_JSON = "application/problem+json";

  @Bean
  OpenApiCustomizer openApiContractCustomizer() {
    return OpenApiContract::customize;
  }

  static void customize(OpenAPI api) {
    if (api.getComponents() == null) {
      api.components(new io.swagger.v3.oas.models.Components());
    }
    api.getComponents().addSchemas(PROBLEM, problemSchema());
    api.getComponents().addSchemas("CloudEvent", cloudEventSchema());
    if (api.getPaths() != null) {
      api.getPaths().forEach(OpenApiContract::customizePath);
    }
    if (api.getComponents().getSchemas() != null) {
      api.getComponents()
          .getSchemas()
          .forEach(
              (name, schema) -> {
                if (!PROBLEM.equals(name) && !"CloudEvent".equals(name)) {
                  optionalMayBeNull(schema);
                }
              });
    }
  }

  private static void customizePath(String path, PathItem item) {
    if (!path.startsWith("/api/")) {
      return;
    }
    if ("/api/v1/events".equals(path) && item.getPost() != null) {
      describeEventsBody(item.getPost());
    }
    item.readOperationsMap()
        .forEach(
            (method, op) -> {
              if (op.getParameters() != null) {
                op.getParameters().stream()
                    .filter(
                        p ->
                            "path".equals(p.getIn())
                                && p.getSchema() != null
                                && p.getSchema().getPattern() == null)
                    .forEach(p -> p.getSchema().setPattern(PATH_SEGMENT));
              }
              ApiResponses responses =
                  op.getResponses() == null ? new ApiResponses() : op.getResponses();
              op.responses(responses);
              boolean hasBody = op.getRequestBody() != null;
              if (method == PathItem.HttpMethod.PUT
                  && responses.get("200") != null
                  && responses.get("201") == null) {
                responses.addApiResponse(
                    "201",
                    new ApiResponse()
                        .description("Created")
                        .content(responses.get("200").getContent()));
              }
              if (ConfigApplyFilter.definitionWrite(method.name(), path)) {
                inForce(responses);
              }
              // Any operation: malformed query parameters, headers or Content-Type; authentication
              // and role.
              problem(responses, "400", "Invalid input: the problem names the offending field");
              problem(responses, "401", "No or an invalid bearer token");
              problem(
                  responses, "403", "The caller's role or event-type scope does not allow this");
              problem(
                  responses, "404", "The resource (or one the request refers to) does not exist");
              if (method == PathItem.HttpMethod.POST || method == PathItem.HttpMethod.PUT) {
                problem(
                    responses, "409", "Conflicts with the current state (e.g. the name is taken)");
              }
              if (hasBody) {
                problem(responses, "413", "The body is larger than activity.max-body-size");
                problem(responses, "415", "The Content-Type is not one this operation accepts");
              }
              problem(
                  responses,
                  "503",
                  "Overloaded or a dependency is unavailable; retry later (Retry-After)");
            });
  }

  /**
   * A definition write answers once it is in force on every live replica ({@link
   * ConfigApplyFilter}): its success answers carry the version; 202 (same body) when the wait ran
   * out.
   */
  private static void inForce(ApiResponses responses) {
    ApiResponse success =
        responses.entrySet().stream()
            .filter(e -> e.getKey().startsWith("2"))
            .map(Map.Entry::getValue)
            .findFirst()
            .orElse(null);
    io.swagger.v3.oas.models.headers.Header version =
        new io.swagger.v3.oas.models.headers.Header()
            .description("The configuration version this change was recorded under")
            .schema(new Schema<>().type("integer"));
    responses.forEach(
        (status, r) -> {
          if (status.startsWith("2")) {
            r.addHeaderObject(ConfigApplyFilter.VERSION, version);
          }
        });
    if (responses.get("202") == null) {
      responses.addApiResponse(
          "202",
          new ApiResponse()
              .description(
                  "Recorded and in force on this replica, but not yet on every live replica when "
                      + "activity.cluster.apply-wait ran out: "
                      + ConfigApplyFilter.LAGGING
                      + " names them; poll the Link "
                      + "(GET /api/v1/cluster/versions/{version}). Same body as the success answer.")
              .content(success == null ? null : success.getContent())
              .addHeaderObject(ConfigApplyFilter.VERSION, version)
              .addHeaderObject(
                  ConfigApplyFilter.LAGGING,
                  new io.swagger.v3.oas.models.headers.Header()
                      .description(
                          "Live replicas that had not applied the version, comma-separated")
                      .schema(new StringSchema()))
              .addHeaderObject(
                  "Link",
                  new io.swagger.v3.oas.models.headers.Header()
                      .description("</api/v1/cluster/versions/{version}>; rel=\"monitor\"")
                      .schema(new StringSchema())));
    }
  }

  private static void problem(ApiResponses responses, String status, String description) {
    if (responses.get(status) == null) {
      responses.addApiResponse(
          status,
          new ApiResponse()
              .description(description)
              .content(
                  new Content()
                      .addMediaType(
                          PROBLEM_JSON,
                          new MediaType()
                              .schema(new Schema<>().$ref("#/components/schemas/" + PROBLEM)))));
    }
  }

  /**
   * Optional properties are serialized as {@code null} when absent, and accepted as {@code null} in
   * requests.
   */
  @SuppressWarnings({"rawtypes", "unchecked"})
  private static void optionalMayBeNull(Schema<?> schema) {
    if (schema.getProperties() == null) {
      return;
    }
    List<String> required = schema.getRequired() == null ? List.of() : schema.getRequired();
    Map<String, Schema> props = new LinkedHashMap<>(schema.getProperties());
    props.forEach(
        (name, prop) -> {
          if (required.contains(name)) {
            return;
          }
          if (prop.get$ref() != null) {
            Schema nullable =
                new Schema<>()
                    .anyOf(
                        List.of(
                            new Schema<>().$ref(prop.get$ref()),
                            new Schema<>().types(Set.of("null"))));
            nullable.setDescription(prop.getDescription());
            schema.getProperties().put(name, nullable);
          } else if (prop.getTypes() != null && !prop.getTypes().isEmpty()) {
            Set<String> types = new LinkedHashSet<>(prop.getTypes());
            types.add("null");
            prop.setTypes(types);
          } else if (prop.getType() != null) {
            prop.setTypes(new LinkedHashSet<>(List.of(prop.getType(), "null")));
          }
        });
  }

  private static Schema<?> problemSchema() {
    Schema<?> error =
        new ObjectSchema()
            .addProperty("field", new StringSchema())
            .addProperty("reason", new StringSchema());
    ObjectSchema problem =
        new ObjectSchema(); // typed: required(List) on the chain's raw Schema is unchecked
    problem
        .description(
            "RFC 9457 problem details; input errors name the first offending field and list all of them")
        .addProperty("type", new StringSchema())
        .addProperty("title", new StringSchema())
        .addProperty("status", new Schema<Integer>().types(Set.of("integer")))
        .addProperty("detail", new StringSchema())
        .addProperty("instance", new StringSchema())
        .addProperty("field", new StringSchema())
        .addProperty("errors", new ArraySchema().items(error));
    return problem.required(List.of("title", "status"));
  }

  /**
   * The structured-mode CloudEvent as {@code CloudEventParser} accepts it (CloudEvents 1.0 JSON
   * format).
   */
  private static Schema<?> cloudEventSchema() {
    ObjectSchema event = new ObjectSchema();
    event.description(
        "A CloudEvent in JSON format; extension attributes are 1-20 lowercase letters or digits");
    event.addProperty("specversion", new StringSchema()._enum(List.of("1.0")));
    event.addProperty("id", new StringSchema().pattern("\\S"));
    event.addProperty("source", new StringSchema().pattern("\\S").format("uri-reference"));
    event.addProperty("type", new StringSchema().pattern("\\S"));
    event.addProperty("subject", new StringSchema());
    event.addProperty("time", new StringSchema().format("date-time"));
    event.addProperty("datacontenttype", new StringSchema());
    event.addProperty("dataschema", new StringSchema().format("uri-reference"));
    event.addProperty("data", new Schema<>());
    event.addProperty("data_base64", new StringSchema().format("byte"));
    // Extension attributes: names of 1-20 lower-case letters or digits, scalar values.
    event.patternProperties(
        Map.of(
            "^(?!data$)[a-z0-9]{1,20}$",
            new Schema<>().types(new LinkedHashSet<>(List.of("string", "integer", "boolean")))));
    event.additionalProperties(false);
    event.required(new ArrayList<>(List.of("specversion", "id", "source", "type")));
    return event;
  }

  private static void describeEventsBody(Operation post) {
    Schema<?> one = new Schema<>().$ref("#/components/schemas/CloudEvent");
    post.requestBody(
        new RequestBody()
            .required(true)
            .description(
                "Structured mode (application/cloudevents+json), batch mode (application/cloudevents-batch+json)"
                    + ", or binary mode: any Content-Type with ce-specversion, ce-id, ce-source and ce-type headers")
            .content(
                new Content()
                    .addMediaType("application/cloudevents+json", new MediaType().schema(one))
                    .addMediaType(
                        "application/cloudevents-batch+json",
                        new MediaType().schema(new ArraySchema().items(one)))));
  }
}
