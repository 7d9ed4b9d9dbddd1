import Foundation

extension StepContext {
    /// An HTTP transport for this step: the context's sender and retry policy, every secret of
    /// the run redacted, and each retry logged under the step.
    func httpTransport() -> HTTPTransport {
        let step = self
        return HTTPTransport(
            sender: lane.http,
            retryPolicy: lane.retryPolicy,
            redactor: SecretRedactor(secrets: Array(lane.environment.secretValues)),
            now: lane.state.now,
            onEvent: { event in step.log("\(event)", level: .warning) }
        )
    }

    /// `path` relative to the repository root, unless absolute.
    func resolve(_ path: String) -> String {
        path.hasPrefix("/") ? path : lane.workingDirectory + "/" + path
    }
}
