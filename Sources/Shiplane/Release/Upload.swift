import Foundation

/// Uploads files to any HTTP endpoint (PUT or POST), streamed from disk, with retries.
///
/// The URL may hold `{name}` (each file's name) and `{version}`. Files go up `concurrency` at a
/// time; every failure is reported, not only the first. An upload cannot be taken back by
/// Shiplane (the server owns it): rollback reports it as kept.
package struct Upload: AsyncAction {
    /// The action's name in steps and reports.
    package static let name = "upload"
    /// The files to upload, relative to the repository root unless absolute.
    package var files: [String]
    /// The URL, with `{name}` (each file's name) and `{version}` placeholders.
    package var url: String
    /// PUT or POST.
    package var method: HTTPRequestMethod
    /// Extra headers; secret values are redacted from output.
    package var headers: [String: String]
    /// What fills `{version}`.
    package var version: String?
    /// How many files upload at once.
    package var concurrency: Int

    /// The files, the URL and the method.
    package var options: [StepOption] {
        [StepOption("files", files.joined(separator: ", ")), StepOption("url", url), StepOption("method", method.rawValue)]
    }

    /// Checks every file and URL first, then uploads; in a dry run only checks and notes what it would upload.
    /// - Throws: every problem found before uploading, or every failed upload together (`AggregateError`).
    package func run(in step: StepContext) async throws {
        try step.checkArtifacts(files)
        let transport = step.httpTransport()
        let target = HTTPUploadTarget(
            urlTemplate: url, method: method, headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            transport: transport
        )
        var problems: [any Error] = []
        for file in files {
            do { try step.checkSendableFile(step.resolve(file)) } catch { problems.append(error) }
            do { _ = try target.url(name: URL(fileURLWithPath: file).lastPathComponent, version: version) } catch { problems.append(error) }
        }
        if !problems.isEmpty {
            throw ShiplaneError("\(problems.count) problem\(problems.count == 1 ? "" : "s") before uploading", underlying: problems)
        }
        if step.isDryRun {
            step.note("would upload \(files.count) file\(files.count == 1 ? "" : "s") with \(method.rawValue) to \(transport.redactor.redact(url))")
            return
        }
        let paths = files.map(step.resolve)
        let version = self.version
        // Written down before the first byte goes, so a run killed midway still says where files
        // may have gone; the server owns them, so no process deletes them.
        let destination = transport.redactor.redact(url)
        try await step.perform(FilesUploaded(destination: destination), "upload to \(destination)") {
            _ = try await performConcurrently(paths, limit: max(1, concurrency), what: "upload") { path in
                try await target.upload(file: path, version: version)
            }
        }
        step.note("\(files.count) file\(files.count == 1 ? "" : "s") uploaded")
    }
}

extension LaneContext {
    /// Uploads files to an HTTP URL (`{name}` and `{version}` are filled in), `concurrency` at a time.
    public func upload(
        _ files: [any ArtifactConvertible], to url: String, method: HTTPRequestMethod = .put, headers: [String: String] = [:],
        version: String? = nil, concurrency: Int = 4, file: String = #fileID, line: Int = #line
    ) async throws {
        try await run(
            Upload(files: try ArtifactInputs.paths(files), url: url, method: method, headers: headers, version: version, concurrency: concurrency),
            file: file, line: line
        )
    }
}

extension Upload: DocumentedAction {
    /// How `lane.upload` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Upload files to any HTTP endpoint with PUT or POST, streamed from disk, concurrently, with retries",
        signature: "try await lane.upload(_ files: [any ArtifactConvertible], to url: String, method: HTTPRequestMethod = .put, headers: [String: String] = [:], version: String? = nil, concurrency: Int = 4)",
        parameters: [
            .init(name: "files", type: "[any ArtifactConvertible]", defaultValue: nil, help: "the files, streamed from disk"),
            .init(name: "to", type: "String", defaultValue: nil, help: "the URL; {name} and {version} are filled in"),
            .init(name: "method", type: "HTTPRequestMethod", defaultValue: ".put", help: ".put or .post"),
            .init(name: "headers", type: "[String: String]", defaultValue: "[:]", help: "extra headers (secret values are redacted from output)"),
            .init(name: "version", type: "String?", defaultValue: "nil", help: "fills {version}"),
            .init(name: "concurrency", type: "Int", defaultValue: "4", help: "files uploading at once")
        ],
        example: #"try await lane.upload(["dist/app.tar.gz"], to: "https://files.example.com/{version}/{name}")"#,
        dryRun: "checks the files and URL, says what it would upload", rollback: "written down before the first byte; reported as staying: the server owns the files"
    )
}
