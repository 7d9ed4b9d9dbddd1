# The test oracle for match's storage format: fastlane match's encryption
# (match/lib/match/encryption/encryption.rb and openssl.rb in fastlane/fastlane), written again
# for these tests with Ruby's standard library only (openssl, base64, securerandom), step for step
# as fastlane's classes do it: EncryptionV1 (AES-256-CBC, OpenSSL's pkcs5_keyivgen with one round
# of MD5 or SHA-256, "Salted__"), EncryptionV2 (AES-256-GCM, PBKDF2-HMAC-SHA256 10,000 rounds,
# "match_encrypted_v2__"), MatchDataEncryption (base64, MD5 then SHA-256 for v1) and the folder
# walk of Match::Encryption::OpenSSL (files *.cer, *.p12, *.mobileprovision, *.provisionprofile,
# encrypted or decrypted in place).
#
#   ruby match_oracle.rb encrypt-files FOLDER VERSION [HASH]  (VERSION 1 or 2; HASH MD5 or SHA256 for 1)
#   ruby match_oracle.rb decrypt-files FOLDER
#   ruby match_oracle.rb change-password FOLDER               (old MATCH_PASSWORD, new MATCH_NEW_PASSWORD)
#
# The password comes from MATCH_PASSWORD, as match reads it. Exit 1 naming the file when one
# does not decrypt (fastlane: "Invalid password passed via 'MATCH_PASSWORD'").
require 'base64'
require 'openssl'
require 'securerandom'

module Oracle
  V1_PREFIX = "Salted__".b
  V2_PREFIX = "match_encrypted_v2__".b

  def self.v1_cipher(mode, password, salt, hash_algorithm)
    cipher = OpenSSL::Cipher.new('aes-256-cbc')
    mode == :encrypt ? cipher.encrypt : cipher.decrypt
    cipher.pkcs5_keyivgen(password, salt, 1, hash_algorithm)
    cipher
  end

  def self.v2_cipher(mode, password, salt)
    cipher = OpenSSL::Cipher.new('aes-256-gcm')
    mode == :encrypt ? cipher.encrypt : cipher.decrypt
    material = OpenSSL::KDF.pbkdf2_hmac(password, salt: salt, iterations: 10_000, length: 32 + 12 + 24, hash: "sha256")
    cipher.key = material[0..31]
    cipher.iv = material[32..43]
    cipher.auth_data = material[44..-1]
    cipher
  end

  def self.encrypt(data, password, version, hash_algorithm = "MD5")
    salt = SecureRandom.random_bytes(8)
    if version == 2
      cipher = v2_cipher(:encrypt, password, salt)
      encrypted = cipher.update(data) + cipher.final
      payload = V2_PREFIX + salt + cipher.auth_tag + encrypted
    else
      cipher = v1_cipher(:encrypt, password, salt, hash_algorithm)
      payload = V1_PREFIX + salt + cipher.update(data) + cipher.final
    end
    Base64.encode64(payload)
  end

  def self.decrypt(text, password)
    stored = Base64.decode64(text)
    if stored.start_with?(V2_PREFIX)
      salt = stored[20..27]
      tag = stored[28..43]
      body = stored[44..-1]
      cipher = v2_cipher(:decrypt, password, salt)
      cipher.auth_tag = tag
      cipher.update(body) + cipher.final
    else
      salt = stored[8..15]
      body = stored[16..-1]
      begin
        cipher = v1_cipher(:decrypt, password, salt, "MD5")
        cipher.update(body) + cipher.final
      rescue StandardError
        cipher = v1_cipher(:decrypt, password, salt, "SHA256")
        cipher.update(body) + cipher.final
      end
    end
  end

  def self.files(folder)
    Dir[File.join(folder, "**", "*.{cer,p12,mobileprovision,provisionprofile}")].reject { |path| File.directory?(path) }.sort
  end

  def self.password(name)
    value = ENV[name]
    if value.nil? || value.strip.empty?
      warn "#{name} is not set"
      exit 2
    end
    value
  end

  def self.decrypt_all(folder, password)
    files(folder).map do |path|
      begin
        [path, decrypt(File.read(path), password)]
      rescue StandardError => error
        warn "cannot decrypt #{path}: #{error.class}: #{error.message}"
        exit 1
      end
    end
  end
end

command, folder, version, hash_algorithm = ARGV
case command
when "encrypt-files"
  password = Oracle.password("MATCH_PASSWORD")
  Oracle.files(folder).each do |path|
    File.write(path, Oracle.encrypt(File.binread(path), password, Integer(version), hash_algorithm || "MD5"))
  end
when "decrypt-files"
  password = Oracle.password("MATCH_PASSWORD")
  Oracle.decrypt_all(folder, password).each { |path, data| File.binwrite(path, data) }
when "change-password"
  old_password = Oracle.password("MATCH_PASSWORD")
  new_password = Oracle.password("MATCH_NEW_PASSWORD")
  Oracle.decrypt_all(folder, old_password).each do |path, data|
    File.write(path, Oracle.encrypt(data, new_password, 2))
  end
else
  warn "usage: match_oracle.rb encrypt-files|decrypt-files|change-password FOLDER [VERSION [HASH]]"
  exit 2
end
