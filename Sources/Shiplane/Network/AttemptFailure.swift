internal import AsyncHTTPClient
import Foundation
internal import NIOCore
internal import NIOPosix

/// What went wrong with one attempt that got no response, as one sentence ("connection refused
/// by 127.0.0.1:9", "unknown host example.invalid", "no response within 30 s"), and what that
/// means for sending it again.
struct AttemptFailure: Equatable {
    var text: String
    var isTimeout: Bool
    /// False only when the request certainly never left (no connection was made).
    var mayHaveLanded: Bool

    /// No connection was made, and not for want of time: refused, unknown host, unreachable.
    /// Retried quickly and briefly (`RetryPolicy.connectRetryBudget`).
    var isConnectError: Bool { !mayHaveLanded && !isTimeout }
}

extension HTTPTransport {
    /// Reads an error of AsyncHTTPClient or NIO for `request`.
    static func classify(_ error: any Error, request: HTTPRequest) -> AttemptFailure {
        let connect = seconds(request.connectTimeout ?? 10)
        let read = seconds(min(request.readTimeout ?? 30, request.timeout))
        let target = Self.target(of: request.url)
        if let clientError = error as? HTTPClientError {
            switch clientError {
            case .connectTimeout:
                return AttemptFailure(text: "timed out connecting to \(target.shown) (no answer within \(connect))", isTimeout: true, mayHaveLanded: false)
            case .readTimeout: return AttemptFailure(text: "no response within \(read)", isTimeout: true, mayHaveLanded: true)
            case .deadlineExceeded:
                return AttemptFailure(text: "no complete response within \(seconds(request.timeout))", isTimeout: true, mayHaveLanded: true)
            case .remoteConnectionClosed:
                return AttemptFailure(text: "the server closed the connection before answering", isTimeout: false, mayHaveLanded: true)
            default: break
            }
        }
        if let text = connectFailureText(error, target: target, connectTimeout: connect) {
            let timedOut = text.hasPrefix("timed out")
            return AttemptFailure(text: text, isTimeout: timedOut, mayHaveLanded: false)
        }
        return AttemptFailure(text: describeConnectionError(error), isTimeout: false, mayHaveLanded: true)
    }

    /// The sentence for an error that means no connection was made; nil for any other error.
    static func connectFailureText(_ error: any Error, target: (host: String, shown: String), connectTimeout: String) -> String? {
        switch error {
        case ChannelError.connectTimeout:
            return "timed out connecting to \(target.shown) (no answer within \(connectTimeout))"
        case let error as NIOConnectionError:
            // Happy eyeballs: the first address's failure says it (they are alike for one host).
            if let first = error.connectionErrors.first {
                return connectFailureText(first.error, target: target, connectTimeout: connectTimeout)
                    ?? "could not connect to \(target.shown) (\(first.error))"
            }
            if let lookup = error.dnsAError ?? error.dnsAAAAError {
                return connectFailureText(lookup, target: target, connectTimeout: connectTimeout) ?? "could not look up \(target.host)"
            }
            return "could not connect to \(target.shown)"
        case let error as SocketAddressError.UnknownHost:
            return lookupFailureText(host: error.host, code: Int32(error.errorCode), description: error.errorDescription)
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED: return "connection refused by \(target.shown)"
            case ETIMEDOUT: return "timed out connecting to \(target.shown) (no answer within \(connectTimeout))"
            case ENETUNREACH: return "cannot reach \(target.shown): the network is unreachable"
            case EHOSTUNREACH: return "cannot reach \(target.shown): no route to the host"
            case EADDRNOTAVAIL: return "cannot connect to \(target.shown): the address is not available"
            default: return nil
            }
        default:
            return nil
        }
    }

    /// The sentence for a failed host name lookup (`getaddrinfo`'s code and text).
    static func lookupFailureText(host: String, code: Int32, description: String) -> String {
        switch code {
        case EAI_NONAME: return "unknown host \(host)"
        case EAI_AGAIN: return "could not look up \(host) (the name server did not answer; try again)"
        default: return "could not look up \(host) (\(description.isEmpty ? "error \(code)" : description))"
        }
    }

    /// The host of `url`, and `host:port` as shown in messages (the scheme's port when none is given).
    static func target(of url: String) -> (host: String, shown: String) {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else { return ("the server", "the server") }
        let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return (host, "\(shownHost):\(port)")
    }

    static func describeConnectionError(_ error: any Error) -> String {
        if let clientError = error as? HTTPClientError {
            switch clientError {
            case .readTimeout, .deadlineExceeded, .connectTimeout, .writeTimeout: return "a timeout"
            case .remoteConnectionClosed: return "the connection was closed"
            default: return "a connection error (\(clientError))"
            }
        }
        if let error = error as? IOError, error.errnoCode == ECONNRESET { return "the server reset the connection" }
        return "a connection error (\(describe(error)))"
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%g s", value)
    }
}
