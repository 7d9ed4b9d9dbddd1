import Foundation
internal import Yams

extension ProjectSettings.Reader {
    /// `forge:` — `type`, `url` and `hosts` (host name → github, gitlab or gitea).
    func forge(_ node: Node) throws -> ForgeSettings {
        let fields = try mapping(node, allowed: ["type", "url", "hosts"], in: "forge")
        var settings = ForgeSettings()
        if let type = fields["type"] { settings.kind = try choice(type, "type", ForgeKind.self) }
        if let url = fields["url"] {
            let text = try string(url, "url").trimmingCharacters(in: .whitespaces)
            guard let components = URLComponents(string: text), ["http", "https"].contains(components.scheme?.lowercased() ?? ""),
                  !(components.host ?? "").isEmpty else {
                throw fail(url, "`url` is `\(text)`, not an http or https URL", "write `url: https://git.example.com`")
            }
            settings.url = text
        }
        if let hosts = fields["hosts"] {
            guard let entries = hosts.mapping else {
                throw fail(hosts, "`hosts` must be a mapping of host names to forges", "write `git.example.com: gitlab` lines, indented under it")
            }
            for (key, value) in entries {
                let host = (key.string ?? "").trimmingCharacters(in: .whitespaces).lowercased()
                guard !host.isEmpty, !host.contains("/"), !host.contains(":") else {
                    throw fail(key, "`\(key.string ?? "")` is not a host name", "write the host alone, e.g. `git.example.com: gitlab`")
                }
                settings.hosts[host] = try choice(value, host, ForgeKind.self)
            }
        }
        return settings
    }
}
