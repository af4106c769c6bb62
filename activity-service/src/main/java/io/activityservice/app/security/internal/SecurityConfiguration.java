package io.activityservice.app.security.internal;

import io.activityservice.app.security.ApiKeyService;
import io.activityservice.app.security.AuditLog;
import io.activityservice.app.security.Caller;
import io.activityservice.app.security.EndpointRoles;
import io.activityservice.app.security.Role;
import io.activityservice.app.security.SecurityProperties;
import io.activityservice.app.security.SecuritySchema;
import io.activityservice.events.schema.ModuleSchema;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import jakarta.servlet.DispatcherType;
import java.time.Clock;
import java.util.Arrays;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.WebSecurityCustomizer;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;
import org.springframework.security.web.firewall.StrictHttpFirewall;

/**
 * Security by default: every endpoint but the health probes needs an API key or a JWT bearer token,
 * with the roles {@link EndpointRoles} names; every change is recorded in the {@link AuditLog}.
 */
@Configuration(proxyBeanMethods = false)
public class SecurityConfiguration {

  /** The security tables' migrations (api keys, audit log; docs/migrations.md). */
  @Bean
  ModuleSchema securitySchema() {
    return SecuritySchema.SCHEMA;
  }

  @Bean(destroyMethod = "close")
  ApiKeyService apiKeyService(
      JdbcClient jdbc,
      Clock clock,
      SecurityProperties props,
      @Value("${server.port:8080}") String port) {
    ApiKeyService keys = new ApiKeyService(jdbc, clock, props.keyCacheTtl());
    AdminBootstrap.run(props, keys, port);
    return keys;
  }

  /**
   * No Micrometer observations of Spring Security's own work (a span and timer per filter,
   * authentication and authorization): measured on {@code POST /api/v1/events}, they cost about a
   * fifth of the request's CPU in the security filter chain (issue 20). The service's own metrics
   * and {@code http.server.requests} remain.
   */
  @Bean
  SecurityObservationSettings securityObservationSettings() {
    return SecurityObservationSettings.noObservations();
  }

  @Bean
  AuditLog auditLog(JdbcClient jdbc, Clock clock) {
    return new AuditLog(jdbc, clock);
  }

  @Bean
  SecurityFilterChain securityFilterChain(
      HttpSecurity http, SecurityProperties props, ApiKeyService keys, AuditLog audit)
      throws Exception {
    ProblemResponses problems = new ProblemResponses();
    // Bearer tokens only: no sessions, no cookies, hence no CSRF exposure; no login forms or basic
    // auth.
    http.csrf(AbstractHttpConfigurer::disable)
        .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .httpBasic(AbstractHttpConfigurer::disable)
        .formLogin(AbstractHttpConfigurer::disable)
        .logout(AbstractHttpConfigurer::disable)
        .requestCache(AbstractHttpConfigurer::disable)
        .exceptionHandling(e -> e.authenticationEntryPoint(problems).accessDeniedHandler(problems))
        .addFilterAfter(new AuditFilter(audit), AnonymousAuthenticationFilter.class);
    if (!props.enabled()) {
      // Local trials: everybody is an admin (AdminBootstrap has logged the warning).
      http.anonymous(
              a ->
                  a.principal(Caller.ANYBODY)
                      .authorities(
                          Arrays.stream(Role.values()).map(Role::authority).toArray(String[]::new)))
          .authorizeHttpRequests(a -> a.anyRequest().permitAll());
      return http.build();
    }
    TokenAuthenticator tokens =
        new TokenAuthenticator(keys, props.bootstrapAdminKey(), JwtCallers.manager(props.jwt()));
    http.authorizeHttpRequests(
        a -> {
          // Async and error dispatches continue a request that was authorized on its way in.
          a.dispatcherTypeMatchers(DispatcherType.ASYNC, DispatcherType.ERROR).permitAll();
          for (EndpointRoles.Rule rule : EndpointRoles.RULES) {
            if (rule.open()) {
              a.requestMatchers(rule.matcher()).permitAll();
            } else if (rule.roles().isEmpty()) {
              a.requestMatchers(rule.matcher()).authenticated();
            } else {
              a.requestMatchers(rule.matcher())
                  .hasAnyRole(rule.roles().stream().map(Role::name).toArray(String[]::new));
            }
          }
          a.anyRequest()
              .hasAnyRole(
                  EndpointRoles.OTHERWISE.roles().stream().map(Role::name).toArray(String[]::new));
        });
    http.oauth2ResourceServer(
        o ->
            o.authenticationManagerResolver(request -> tokens)
                .authenticationEntryPoint(problems)
                .accessDeniedHandler(problems));
    return http.build();
  }

  /**
   * Lets Spring MVC answer requests with methods no endpoint declares (e.g. {@code QUERY}) with 405
   * and {@code Allow}, and answers every request the firewall refuses (encoded slashes, control
   * characters in the path) with a 400 problem instead of the container's error page.
   */
  @Bean
  WebSecurityCustomizer firewallCustomizer() {
    StrictHttpFirewall firewall = new StrictHttpFirewall();
    // Which methods exist is decided by the endpoints (405 otherwise), and which need a role by
    // EndpointRoles.
    firewall.setUnsafeAllowAnyHttpMethod(true);
    return web -> web.httpFirewall(firewall).requestRejectedHandler(ProblemResponses::rejected);
  }

  /** Tells OpenAPI clients (and Swagger UI's "Authorize") that the API takes bearer tokens. */
  @Bean
  OpenAPI openApiSecurity() {
    return new OpenAPI()
        .components(
            new Components()
                .addSecuritySchemes(
                    "bearer",
                    new SecurityScheme()
                        .type(SecurityScheme.Type.HTTP)
                        .scheme("bearer")
                        .description("An API key (ask_…) or a JWT from the configured issuer")))
        .addSecurityItem(new SecurityRequirement().addList("bearer"));
  }
}
