import Foundation

/// Why a notification was not delivered.
package enum NotifyError: ReportableError {
    /// No webhook URL was given and the variable that should hold it is unset or empty.
    case missingWebhookURL(variable: String)
    /// The URL is not an absolute http or https URL with a host; `reason` says what is wrong.
    case invalidURL(String, reason: String)
    /// Slack answered with one of its error strings (`invalid_payload`, `channel_not_found`, ...).
    case slackRejected(status: Int, code: String)
    /// A generic webhook answered a non-2xx status.
    case webhookRejected(url: String, status: Int, bodySnippet: String)
    /// A `{{placeholder}}` template named values that were not given, or rendered invalid JSON.
    case invalidTemplate(reason: String, details: [String])
    /// A token or password the service needs is not set (`variable` names where it is looked for).
    case missingToken(variable: String, service: String)
    /// Options that cannot go together, or an option a service does not take; says which.
    case conflictingOptions(String)
    /// A service answered with an error status and its own message (Discord, Teams, Mattermost).
    case serviceRejected(service: String, status: Int, message: String)

    /// Says what was not delivered and why.
    package var message: String {
        switch self {
        case .missingWebhookURL(let variable): return "no webhook URL: \(variable) is not set"
        case let .invalidURL(url, reason): return "invalid webhook URL \(url): \(reason)"
        case let .slackRejected(status, code): return "Slack rejected the message: \(Self.explain(code)) (HTTP \(status), \(code))"
        case let .webhookRejected(url, status, _): return "the webhook \(url) answered HTTP \(status)"
        case let .invalidTemplate(reason, _): return "invalid webhook template: \(reason)"
        case let .missingToken(variable, service): return "no credentials for \(service): \(variable) is not set"
        case .conflictingOptions(let what): return "invalid notification options: \(what)"
        case let .serviceRejected(service, status, message): return "\(service) rejected the message: \(message) (HTTP \(status))"
        }
    }

    /// A rejecting webhook's body, or each unknown placeholder of a template.
    package var info: [(key: String, value: String)] {
        switch self {
        case let .webhookRejected(_, _, snippet): return [("body", snippet)]
        case let .invalidTemplate(_, details): return details.map { ("detail", $0) }
        default: return []
        }
    }

    /// What to do next, where the cause is one the user can fix.
    package var suggestion: String? {
        switch self {
        case .missingWebhookURL(let variable): return "set \(variable) to the incoming webhook URL (e.g. in .env or the CI secrets)"
        case .invalidURL: return "use an absolute https:// URL"
        case .slackRejected(_, let code):
            switch code {
            case "channel_not_found", "channel_is_archived": return "check the webhook's channel in the Slack app settings"
            case "invalid_token", "no_service", "no_service_id", "no_team", "team_disabled": return "the webhook was revoked: create a new one and update SLACK_WEBHOOK_URL"
            case "action_prohibited", "posting_to_general_channel_denied": return "a Slack admin restricts posting to this channel"
            case "not_in_channel": return "invite the bot to the channel (/invite @your-bot), then run again"
            case "not_authed", "invalid_auth", "token_revoked", "account_inactive": return "check SLACK_BOT_TOKEN (a bot token, xoxb-…)"
            case "missing_scope": return "give the Slack app the chat:write and channels:history (or groups:history) scopes, and reinstall it"
            default: return nil
            }
        case .missingToken(let variable, _): return "set \(variable) (e.g. in .env or the CI secrets)"
        case .webhookRejected, .invalidTemplate, .conflictingOptions, .serviceRejected: return nil
        }
    }

    static func explain(_ code: String) -> String {
        switch code {
        case "invalid_payload": return "the payload was malformed"
        case "no_text": return "the message had no text"
        case "channel_not_found": return "the channel does not exist"
        case "channel_is_archived": return "the channel is archived"
        case "action_prohibited": return "posting is prohibited"
        case "posting_to_general_channel_denied": return "posting to #general is restricted"
        case "too_many_attachments": return "too many attachments"
        case "invalid_token", "no_service", "no_service_id": return "the webhook is disabled or invalid"
        case "no_team", "team_disabled": return "the workspace is gone or disabled"
        case "rate_limited", "ratelimited": return "rate limited"
        case "not_in_channel": return "the bot is not in the channel"
        case "not_authed": return "no token was sent"
        case "invalid_auth", "token_revoked", "account_inactive": return "the token is not valid"
        case "missing_scope": return "the token lacks a scope"
        case "message_not_found": return "the message does not exist"
        case "cant_delete_message": return "the bot may not delete this message"
        default: return "error \(code)"
        }
    }
}
