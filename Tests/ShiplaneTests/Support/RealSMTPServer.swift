import Foundation

/// A real SMTP server (aiosmtpd from PyPI, in the project's virtualenv made by `Scripts/setup`)
/// on 127.0.0.1, with STARTTLS or implicit TLS from a throwaway certificate made by `openssl`
/// for `IP:127.0.0.1`, and AUTH PLAIN/LOGIN. Each message it receives is parsed by Python's
/// `email` package and read back as JSON.
final class RealSMTPServer {
    let folder: String
    let port: Int
    let user = "release-bot"
    let password = "smtp-Pa55word-XYZZY"
    private let process = Process()
    private let input = Pipe()

    /// The certificate the client must trust (`SMTP_CA_FILE`).
    var certificate: String { folder + "/cert.pem" }

    /// Starts the server; `mode` is starttls, tls or none; `auth` requires a login.
    init(mode: String, auth: Bool = true, loseAnswers: Int = 0) throws {
        let python = packageRoot + "/.venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TestFailure("no virtualenv at .venv: run Scripts/setup (it installs aiosmtpd from PyPI)")
        }
        folder = NSTemporaryDirectory() + "shiplane-smtp-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let made = try runTool(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", folder + "/key.pem", "-out", folder + "/cert.pem"])
        guard made.status == 0 else { throw TestFailure("openssl could not make a certificate: \(made.output)") }
        var arguments = [packageRoot + "/Tests/ShiplaneTests/Fixtures/SMTP/smtp_server.py", "--mode", mode, "--out", folder + "/received.jsonl",
                         "--cert", folder + "/cert.pem", "--key", folder + "/key.pem", "--lose-answers", "\(loseAnswers)"]
        if auth { arguments += ["--user", user, "--password", password] }
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
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
        guard seen.hasPrefix("READY "), let port = Int(seen.dropFirst(6).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            try? FileManager.default.removeItem(atPath: folder)
            throw TestFailure("the SMTP server did not start: \(seen)")
        }
        self.port = port
    }

    /// Every message received, oldest first, as the server parsed it.
    var received: [[String: Any]] {
        guard let text = try? String(contentsOfFile: folder + "/received.jsonl", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The environment a lane needs to send through this server.
    func environment(security: String, login: Bool = true) -> [String: String] {
        var variables = ["SMTP_HOST": "127.0.0.1", "SMTP_PORT": "\(port)", "SMTP_SECURITY": security, "SMTP_CA_FILE": certificate,
                         "SMTP_FROM": "Shiplane <release@example.com>"]
        if login {
            variables["SMTP_USERNAME"] = user
            variables["SMTP_PASSWORD"] = password
        }
        return variables
    }

    /// Stops the server (its standard input closes) and removes its folder.
    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
