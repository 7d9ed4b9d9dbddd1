import Foundation

extension StepContext {
    /// An HTTP transport for this step: the context's sender and retry policy, every secret of
    /// the run redacted, each retry logged under the step as a warning, and a body streamed from
    /// disk as detail (an ordinary upload is not a warning).
    func httpTransport() -> HTTPTransport {
        let step = self
        return HTTPTransport(
            sender: lane.http,
            retryPolicy: lane.retryPolicy,
            redactor: lane.redactor,
            now: lane.state.now,
            onEvent: { event in step.log("\(event)", level: Self.level(of: event)) }
        )
    }

    /// The level an HTTP event is shown at: a retry is a warning, a streamed body is detail.
    static func level(of event: HTTPEvent) -> LogLevel {
        switch event {
        case .retrying: .warning
        case .streamingUpload: .debug
        }
    }

    /// Checks that `path` is a regular file the step can send: on disk, or — in a dry run — one
    /// an earlier step of the run would have written.
    /// - Throws: `HTTPTransportError.fileUnreadable` naming the problem.
    func checkSendableFile(_ path: String) throws {
        if isDryRun, lane.fileSystem.isFile(path) { return }
        _ = try HTTPTransport.regularFileSize(path)
    }

    /// `path` relative to the repository root, unless absolute.
    func resolve(_ path: String) -> String {
        path.hasPrefix("/") ? path : lane.workingDirectory + "/" + path
    }
}
