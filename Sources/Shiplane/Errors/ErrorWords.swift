import Foundation
internal import NIOCore
internal import NIOPosix

/// An error of another library told in words, never by its Swift type name
/// (`CancellationError()`, `DecodingError.keyNotFound(…)`, `Error Domain=NSCocoaErrorDomain …`,
/// `NIOConnectionError(…)`): nil for an error it does not know, which `describe` then shows as
/// the error describes itself.
package func errorInWords(_ error: any Error) -> String? {
    switch error {
    case is CancellationError:
        return "it was stopped before it finished (the run was interrupted, or its time ran out)"
    case let decoding as DecodingError:
        return decodingWords(decoding)
    case let connection as NIOConnectionError:
        if connection.dnsAError != nil || connection.dnsAAAAError != nil, connection.connectionErrors.isEmpty {
            return "the host name could not be resolved"
        }
        let reasons = connection.connectionErrors.map { errorInWords($0.error) ?? describe($0.error) }
        var seen: Set<String> = []
        let unique = reasons.filter { seen.insert($0).inserted }
        return unique.isEmpty ? "could not connect" : "could not connect: " + unique.joined(separator: "; ")
    case let io as IOError:
        return String(cString: strerror(io.errnoCode))
    case let channel as ChannelError:
        switch channel {
        case .connectTimeout: return "the connection timed out"
        case .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed, .eof: return "the connection was closed"
        default: return "the connection failed"
        }
    default:
        break
    }
    let ns = error as NSError
    if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
    guard ns.domain == NSCocoaErrorDomain else { return nil }
    let path = (ns.userInfo[NSFilePathErrorKey] as? String) ?? (ns.userInfo[NSURLErrorKey] as? URL)?.path
    let reason: String
    if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? any Error, let words = errorInWords(underlying) {
        reason = words
    } else {
        switch CocoaError.Code(rawValue: ns.code) {
        case .fileNoSuchFile, .fileReadNoSuchFile: reason = "no such file or folder"
        case .fileReadNoPermission, .fileWriteNoPermission: reason = "permission denied"
        case .fileWriteOutOfSpace: reason = "no space left on the device"
        case .fileWriteVolumeReadOnly: reason = "the file system is read-only"
        case .fileWriteFileExists: reason = "it exists already"
        case .fileReadCorruptFile: reason = "it is not in the expected format"
        case .fileReadInapplicableStringEncoding: reason = "it is not text in the expected encoding"
        default: reason = "the file operation failed (code \(ns.code))"
        }
    }
    return path.map { "\($0): \(reason)" } ?? reason
}

/// A decoding error as a sentence naming where in the data it is.
private func decodingWords(_ error: DecodingError) -> String {
    func at(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        return path.isEmpty ? "at the top" : "at \(path)"
    }
    switch error {
    case let .keyNotFound(key, context): return "\(key.stringValue) is missing \(at(context))"
    case let .valueNotFound(_, context): return "a value is missing \(at(context))"
    case let .typeMismatch(_, context): return "the value \(at(context)) is not of the kind expected"
    case let .dataCorrupted(context): return "the data is not valid \(at(context))"
    @unknown default: return "the data could not be read"
    }
}
