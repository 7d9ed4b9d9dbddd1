import Foundation

/// A real S3 server (moto's server from PyPI, in the project's virtualenv made by `Scripts/setup`)
/// on 127.0.0.1 with Signature Version 4 checked: an IAM user's key is made at start and every
/// later request must be signed with its secret (`Fixtures/S3/s3_server.py`). What it holds is
/// read back through boto3 (`s3_read.py`), a client other than Shiplane's.
final class RealS3Server {
    let port: Int
    let accessKeyID: String
    let secretAccessKey: String
    let bucket = "releases"
    private let process = Process()
    private let input = Pipe()

    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// `partDelay`: seconds each UploadPart's answer is held after the part is stored.
    /// `holdCreate`: a file the server appends a line to for each CreateMultipartUpload once it
    /// made the upload; the first one's answer is held until `holdCreate + ".release"` exists.
    init(partDelay: Double = 0, holdCreate: String? = nil) throws {
        let python = packageRoot + "/.venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TestFailure("no virtualenv at .venv: run Scripts/setup (it installs moto[server] from PyPI)")
        }
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [packageRoot + "/Tests/ShiplaneTests/Fixtures/S3/s3_server.py", "--bucket", bucket, "--part-delay", "\(partDelay)"]
            + (holdCreate.map { ["--hold-create", $0] } ?? [])
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
        guard words.count == 4, words[0] == "READY", let port = Int(words[1]) else {
            process.terminate()
            throw TestFailure("the S3 server did not start: \(seen)")
        }
        self.port = port
        accessKeyID = words[2]
        secretAccessKey = words[3]
    }

    /// The environment a lane needs to reach this server.
    var environment: [String: String] {
        ["AWS_ACCESS_KEY_ID": accessKeyID, "AWS_SECRET_ACCESS_KEY": secretAccessKey, "AWS_ENDPOINT_URL_S3": endpoint, "AWS_REGION": "us-east-1"]
    }

    /// What the bucket holds, read through boto3: objects by key and open multipart uploads.
    func contents() throws -> (objects: [String: [String: Any]], uploads: [String], parts: Int) {
        let read = try runTool([packageRoot + "/.venv/bin/python", packageRoot + "/Tests/ShiplaneTests/Fixtures/S3/s3_read.py",
                                endpoint, accessKeyID, secretAccessKey, bucket])
        guard read.status == 0, let json = try JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? [String: Any] else {
            throw TestFailure("could not read the bucket: \(read.output)")
        }
        return (json["objects"] as? [String: [String: Any]] ?? [:], json["uploads"] as? [String] ?? [], json["parts"] as? Int ?? 0)
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
