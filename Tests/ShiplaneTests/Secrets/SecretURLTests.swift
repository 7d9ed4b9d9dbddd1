import Foundation
import Testing
@testable import Shiplane

/// A secret that is a URL hides what can hold a secret and keeps the host readable.
@Suite("Secret URLs: the host stays, the secret parts go", .offThePool)
struct SecretURLTests {
    @Test(arguments: [
        ("http://127.0.0.1:9/hook", "POST http://127.0.0.1:9/hook failed", "POST http://127.0.0.1:9/*** failed"),
        ("http://127.0.0.1:9", "GET http://127.0.0.1:9 refused", "GET http://127.0.0.1:9 refused"),
        ("https://hooks.slack.com/services/T0AB12CD/B0CD34EF/abcdefGHIJKL1234mnop",
         "to https://hooks.slack.com/services/T0AB12CD/B0CD34EF/abcdefGHIJKL1234mnop.", "to https://hooks.slack.com/***."),
        ("https://discord.com/api/webhooks/123456789012345678/AbCdEf-token_value-1234567890",
         "x https://discord.com/api/webhooks/123456789012345678/AbCdEf-token_value-1234567890 y", "x https://discord.com/*** y"),
        ("postgres://app:s3cretpass@db.internal:5432/prod", "at postgres://app:s3cretpass@db.internal:5432/prod", "at postgres://***@db.internal:5432/***"),
        ("https://example.com/notify?token=abc123def456&format=json",
         "post https://example.com/notify?token=abc123def456&format=json", "post https://example.com/***?token=***&format=***"),
    ])
    func aConfiguredURLShowsItsHost(secret: String, text: String, expected: String) {
        #expect(SecretRedactor(secrets: [secret]).redact(text) == expected)
    }

    @Test func theTokensInAURLAreHiddenOnTheirOwnToo() {
        let redactor = SecretRedactor(secrets: [
            "https://discord.com/api/webhooks/123456789012345678/AbCdEf-token_value-1234567890",
            "postgres://app:s3cretpass@db.internal:5432/prod",
            "https://example.com/notify?token=abc123def456&format=json",
        ])
        let text = "echo AbCdEf-token_value-1234567890 s3cretpass abc123def456 123456789012345678 json prod"
        #expect(redactor.redact(text) == "echo *** *** *** *** json prod")
    }

    @Test func wordsOfAnAddressAreNotTokens() {
        #expect(!SecretURL.looksLikeAToken("hook") && !SecretURL.looksLikeAToken("services") && !SecretURL.looksLikeAToken("v1"))
        #expect(SecretURL.looksLikeAToken("T0AB12CD") && SecretURL.looksLikeAToken("abcdefghijklmnopqrstuvwxyz"))
    }

    @Test(arguments: ["hunter2-extended", "not a url://x", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "mailto:bob@example.com"])
    func valuesThatAreNotURLsAreHiddenWhole(secret: String) {
        #expect(SecretURL(secret) == nil)
        #expect(SecretRedactor(secrets: [secret]).redact("a \(secret) b") == "a *** b")
    }
}
