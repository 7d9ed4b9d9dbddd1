import Foundation
internal import CLibgit2

/// What the C callbacks of one push share; passed to them through an `Unmanaged` payload.
final class PushState {
    let credentials: PushCredentials
    /// How often the remote asked for credentials, and how often it was given some.
    var attempts = 0
    var given = 0
    var gaveUp = false
    var rejections: [(String, String)] = []
    /// The remote's side-band text so far (hook output), split into lines by `remoteMessages`.
    var sideband = ""

    /// The non-empty lines the remote wrote, at most 20 (a hook may write a lot).
    var remoteMessages: [String] {
        Array(sideband.split(whereSeparator: { $0 == "\n" || $0 == "\r" })
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.prefix(20))
    }

    init(credentials: PushCredentials) {
        self.credentials = credentials
    }

    /// The error for a failed libgit2 call: the refused credentials when the callback gave up.
    func error(for result: Int32, _ operation: String) -> GitError {
        guard gaveUp else { return GitError(result: result, operation: operation) }
        let message: String
        switch credentials.kind {
        case .none:
            message = "the remote asks for credentials and none were given: set a token (for HTTPS) or use the ssh agent"
        case .token:
            message = "the remote refused the credentials (\(credentials.description), \(given) attempt(s)): "
                + "check that the token is valid and may push to this repository"
        case .sshAgent:
            message = "the remote refused the ssh agent's keys (\(given) attempt(s)): check `ssh-add -l` "
                + "and that the key may push to this repository"
        }
        return GitError(code: .authentication, operation: operation, message: message)
    }
}

let pushCredentialsCallback: git_credential_acquire_cb = { out, _, usernameFromURL, allowedTypes, payload in
    guard let out, let payload else { return GIT_EUSER.rawValue }
    let state = Unmanaged<PushState>.fromOpaque(payload).takeUnretainedValue()
    state.attempts += 1
    let refuse: Int32 = GIT_EAUTH.rawValue
    guard state.attempts <= state.credentials.maxAttempts else {
        state.gaveUp = true
        return refuse
    }
    switch state.credentials.kind {
    case .none:
        state.gaveUp = true
        return refuse
    case .token(let username, let token):
        guard allowedTypes & GIT_CREDENTIAL_USERPASS_PLAINTEXT.rawValue != 0 else {
            state.gaveUp = true
            return refuse
        }
        state.given += 1
        return git_credential_userpass_plaintext_new(out, username, token)
    case .sshAgent(let username):
        let user = username ?? usernameFromURL.map { String(cString: $0) } ?? "git"
        if allowedTypes & GIT_CREDENTIAL_SSH_KEY.rawValue != 0 {
            state.given += 1
            return git_credential_ssh_key_from_agent(out, user)
        }
        if allowedTypes & GIT_CREDENTIAL_USERNAME.rawValue != 0 {
            return git_credential_username_new(out, user)
        }
        state.gaveUp = true
        return refuse
    }
}

let pushUpdateReferenceCallback: git_push_update_reference_cb = { name, status, payload in
    guard let payload else { return 0 }
    let state = Unmanaged<PushState>.fromOpaque(payload).takeUnretainedValue()
    if let status {
        state.rejections.append((name.map { String(cString: $0) } ?? "?", String(cString: status)))
    }
    return 0
}

let sidebandCallback: git_transport_message_cb = { text, length, payload in
    guard let payload, let text, length > 0 else { return 0 }
    let state = Unmanaged<PushState>.fromOpaque(payload).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: text, count: Int(length))
    if state.sideband.utf8.count < 16_384 { state.sideband += String(decoding: bytes, as: UTF8.self) }
    return 0
}
