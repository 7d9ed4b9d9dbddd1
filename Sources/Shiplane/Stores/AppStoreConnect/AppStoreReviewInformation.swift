import Foundation

/// App Review's contact, demo account and notes, in fastlane `deliver`'s layout:
/// `<metadata>/review_information/<field>.txt`.
///
/// deliver's files map to `appStoreReviewDetails` attributes: `first_name` → `contactFirstName`,
/// `last_name` → `contactLastName`, `phone_number` → `contactPhone`, `email_address` →
/// `contactEmail`, `demo_user` → `demoAccountName`, `demo_password` → `demoAccountPassword`,
/// `notes` → `notes`. As deliver does, the text is taken stripped, an empty file counts as absent,
/// and `demoAccountRequired` is true exactly when both demo user and password are given.
struct AppStoreReviewInformation: Sendable, Equatable {
    static let fields: [(file: String, attribute: String)] = [
        ("first_name", "contactFirstName"), ("last_name", "contactLastName"), ("phone_number", "contactPhone"),
        ("email_address", "contactEmail"), ("demo_user", "demoAccountName"), ("demo_password", "demoAccountPassword"), ("notes", "notes"),
    ]
    static let password = "demoAccountPassword"
    static let required = "demoAccountRequired"

    /// The text attributes to set (absent files are not listed).
    var values: [String: String]
    /// deliver's rule: both demo user and demo password given.
    var demoAccountRequired: Bool { !(values["demoAccountName"] ?? "").isEmpty && !(values[Self.password] ?? "").isEmpty }

    /// Reads `folder` (absolute); nil when the folder does not exist.
    /// - Throws: `ShiplaneError` when a file is not UTF-8 or the folder holds none of deliver's files.
    static func read(folder: String) throws -> AppStoreReviewInformation? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else { return nil }
        var values: [String: String] = [:]
        for (file, attribute) in fields {
            let path = folder + "/" + file + ".txt"
            guard FileManager.default.fileExists(atPath: path) else { continue }
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                throw ShiplaneError("\(path) cannot be read as UTF-8 text", suggestion: "save it as UTF-8")
            }
            let stripped = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !stripped.isEmpty { values[attribute] = stripped }
        }
        guard !values.isEmpty else {
            throw ShiplaneError("the review information folder \(folder) holds none of deliver's files",
                                suggestion: "add first_name.txt, last_name.txt, phone_number.txt, email_address.txt, demo_user.txt, demo_password.txt or notes.txt, or remove the folder")
        }
        return AppStoreReviewInformation(values: values)
    }
}
