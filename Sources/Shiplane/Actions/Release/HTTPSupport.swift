import Foundation
internal import AsyncHTTPClient

extension StepContext {
    /// An HTTP transport for this step: the process-wide client, retries with backoff, every
    /// secret of the run redacted, and each retry logged under the step.
    func httpTransport() -> HTTPTransport {
        let step = self
        return HTTPTransport(
            client: HTTPClient.shared,
            retryPolicy: RetryPolicy(
                maxAttempts: Int(lane.environment["SHIPLANE_HTTP_ATTEMPTS"] ?? "") ?? 5,
                baseDelay: Double(lane.environment["SHIPLANE_HTTP_RETRY_DELAY"] ?? "") ?? 1
            ),
            redactor: SecretRedactor(secrets: Array(lane.environment.secretValues)),
            onEvent: { event in step.log("\(event)", level: .warning) }
        )
    }

    /// `path` relative to the repository root, unless absolute.
    func resolve(_ path: String) -> String {
        path.hasPrefix("/") ? path : lane.workingDirectory + "/" + path
    }
}
