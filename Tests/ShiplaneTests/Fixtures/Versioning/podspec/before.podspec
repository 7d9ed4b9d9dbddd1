Pod::Spec.new do |spec|
  spec.name         = 'Example'
  spec.version      = '1.4.2'
  spec.summary      = 'An example pod.'
  spec.source       = { :git => 'https://example.com/example.git', :tag => spec.version.to_s }
  spec.dependency 'Other', '~> 1.4.2'
end
