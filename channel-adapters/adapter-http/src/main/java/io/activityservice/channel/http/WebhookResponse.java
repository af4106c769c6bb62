package io.activityservice.channel.http;

/**
 * What a target answered to one {@link WebhookClient#exchange} request.
 *
 * @param status the HTTP status
 * @param retryAfter the {@code Retry-After} header as sent, or {@code null}
 * @param body the body, empty unless asked for (and then at most the bound asked for)
 */
public record WebhookResponse(int status, String retryAfter, byte[] body) {}
