import Foundation

/// The Google Cloud Storage emulator from PyPI (`gcp-storage-emulator`, installed by
/// Scripts/setup into .venv), in memory on a free port with one bucket. It takes any caller (no
/// credentials) and ignores `ifGenerationMatch` and pagination: those are checked against
/// `FakeGCS`, written from Google's description.
final class RealGCSEmulator {
    let port: Int
    let bucket: String
    private let process = Process()
    private let input = Pipe()

    var endpoint: String { "http://127.0.0.1:\(port)" }

    init(bucket: String = "acme-signing") throws {
        self.bucket = bucket
        let python = packageRoot + "/.venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TestFailure("no virtualenv at .venv: run Scripts/setup (it installs gcp-storage-emulator from PyPI)")
        }
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [packageRoot + "/Tests/ShiplaneTests/Fixtures/GCS/gcs_emulator.py", "serve", bucket]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = input
        try process.run()
        var seen = ""
        while !seen.contains("\n") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            seen += String(decoding: data, as: UTF8.self)
        }
        let words = seen.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard words.count == 2, words[0] == "READY", let port = Int(words[1]) else {
            process.terminate()
            process.waitUntilExit()
            throw TestFailure("the Cloud Storage emulator did not start: \(seen)")
        }
        self.port = port
    }

    /// Every object downloaded into `folder` by Python's standard library: name → SHA-256 and generation.
    func download(into folder: String) throws -> [String: [String: Any]] {
        let read = try runTool([packageRoot + "/.venv/bin/python", packageRoot + "/Tests/ShiplaneTests/Fixtures/GCS/gcs_emulator.py",
                                "download", endpoint, bucket, folder])
        guard read.status == 0, let json = try JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? [String: [String: Any]] else {
            throw TestFailure("could not download the bucket: \(read.output)")
        }
        return json
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
