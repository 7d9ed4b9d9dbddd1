import Foundation

/// What a provisioning profile says of itself: the property list inside its CMS signature
/// (`security cms -D` shows the same), read without checking the signature — Apple made it, and
/// App Store Connect is asked whether it is still valid.
package struct ProvisioningProfileInfo: Equatable, Sendable {
    package var name: String
    package var uuid: String
    package var teamID: String?
    package var expires: Date?
    /// The UDIDs it lists (development and ad hoc profiles).
    package var devices: [String]

    /// Reads a profile's bytes; nil when they hold no property list.
    package init?(_ data: Data) {
        let bytes = Array(data)
        guard let start = Self.find(Array("<?xml".utf8), in: bytes, from: 0),
              let end = Self.find(Array("</plist>".utf8), in: bytes, from: start) else { return nil }
        let xml = Data(bytes[start..<(end + "</plist>".utf8.count)])
        guard let plist = try? PropertyListSerialization.propertyList(from: xml, options: [], format: nil) as? [String: Any],
              let name = plist["Name"] as? String, let uuid = plist["UUID"] as? String else { return nil }
        self.name = name
        self.uuid = uuid
        teamID = (plist["TeamIdentifier"] as? [String])?.first
        expires = plist["ExpirationDate"] as? Date
        devices = plist["ProvisionedDevices"] as? [String] ?? []
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        var index = from
        while index + needle.count <= haystack.count {
            if haystack[index] == needle[0], haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
