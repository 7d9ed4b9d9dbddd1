import Foundation

/// Performs the upload operations App Store Connect hands out for a file: each one exactly as
/// given (method, URL, the headers Apple lists and nothing else, the file's bytes from `offset`
/// for `length`, streamed from disk), each retried on its own by the transport.
struct UploadOperations: Sendable {
    let operations: [ASCUploadOperation]
    let file: String
    let fileSize: Int64

    /// Checks that the operations cover the file exactly once, in order, with usable URLs;
    /// `what` names the file in errors ("the IPA", "the screenshot 01.png").
    /// - Throws: `StoreAPIError` describing the gap, overlap or bad operation.
    init(_ operations: [ASCUploadOperation], file: String, fileSize: Int64, now: Date, what: String = "the IPA") throws {
        func refuse(_ problem: String) -> StoreAPIError {
            StoreAPIError(service: AppStoreConnectClient.service, operation: "hand out upload operations for \(what)", status: 200,
                          details: [problem], suggestion: "run again; if it persists, App Store Connect's upload service is misbehaving")
        }
        guard !operations.isEmpty else { throw refuse("no upload operations were given for a file of \(fileSize) bytes") }
        let sorted = operations.sorted { $0.offset < $1.offset }
        var next: Int64 = 0
        for (index, operation) in sorted.enumerated() {
            let part = "upload operation \(operation.partNumber ?? index + 1)"
            guard operation.length > 0 else { throw refuse("\(part) has length \(operation.length)") }
            guard operation.offset == next else {
                throw refuse(operation.offset > next
                    ? "the upload operations do not cover the file: bytes \(next)..<\(operation.offset) are in no operation"
                    : "\(part) overlaps the one before it at byte \(operation.offset)")
            }
            guard let scheme = URLComponents(string: operation.url)?.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
                throw refuse("\(part) has no usable URL")
            }
            guard ["PUT", "POST", "PATCH"].contains(operation.method.uppercased()) else {
                throw refuse("\(part) asks for method \(operation.method)")
            }
            if let declared = operation.requestHeaders?.first(where: { $0.name.lowercased() == "content-length" }),
               Int64(declared.value) != operation.length {
                throw refuse("\(part) declares Content-Length \(declared.value) for \(operation.length) bytes")
            }
            if let expiration = operation.expiration.flatMap(Self.parseDate), expiration <= now {
                throw refuse("\(part) expired at \(operation.expiration ?? "")")
            }
            next = operation.offset + operation.length
        }
        guard next == fileSize else {
            throw refuse(next < fileSize
                ? "the upload operations do not cover the file: they end at byte \(next) of \(fileSize)"
                : "the upload operations reach byte \(next), past the end of the file (\(fileSize) bytes)")
        }
        self.operations = sorted
        self.file = file
        self.fileSize = fileSize
    }

    /// Sends every part, `concurrency` at a time, read from disk `chunkSize` bytes at a time (nil:
    /// the transport's 1 MiB); all failures are reported together.
    /// - Throws: `AggregateError` holding each part's failure.
    /// `connections`: the most connections the upload pool keeps to a host (nil: AsyncHTTPClient's 8).
    func perform(with transport: HTTPTransport, concurrency: Int, timeout: Double, chunkSize: Int? = nil, connections: Int? = nil,
                 onPartDone: @escaping @Sendable (Int64) -> Void) async throws {
        if operations.count == 1, let operation = operations.first {
            // One part (a screenshot): sent from this task, with no task group to start.
            do {
                try await send(operation, number: 1, with: transport, timeout: timeout, chunkSize: chunkSize, connections: connections)
            } catch {
                throw AggregateError("1 of 1 upload parts failed", errors: [error])
            }
            onPartDone(operation.length)
            return
        }
        _ = try await performConcurrently(Array(operations.enumerated()), limit: concurrency, what: "upload parts") { index, operation in
            try await send(operation, number: index + 1, with: transport, timeout: timeout, chunkSize: chunkSize, connections: connections)
            onPartDone(operation.length)
        }
    }

    /// Sends one part; `number` names it in errors when Apple gives no part number.
    private func send(_ operation: ASCUploadOperation, number: Int, with transport: HTTPTransport, timeout: Double, chunkSize: Int?,
                      connections: Int?) async throws {
        // Content-Length comes from the streamed body; every other header is Apple's, as given.
        let headers = (operation.requestHeaders ?? [])
            .filter { $0.name.lowercased() != "content-length" }
            .map { (name: $0.name, value: $0.value) }
        var request = HTTPRequest(
            method: HTTPRequestMethod(rawValue: operation.method.uppercased()) ?? .put, url: operation.url, headers: headers,
            body: .fileSlice(path: file, offset: operation.offset, length: operation.length), timeout: timeout)
        request.fileChunkSize = chunkSize
        // Parts keep warm connections of their own: the next part never waits behind an API call.
        request.connectionPool = "upload-parts"
        request.maxConnections = connections
        let response = try await transport.send(request)
        guard response.isSuccess else {
            throw StoreAPIError(service: "App Store Connect's upload service",
                                operation: "take part \(operation.partNumber ?? number) (bytes \(operation.offset)..<\(operation.offset + operation.length))",
                                status: response.status, details: [transport.redactor.redact(response.bodySnippet())].filter { !$0.isEmpty })
        }
    }

    static func parseDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
