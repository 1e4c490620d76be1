{
  "schemapin_version": "1.4",
  "schema_hash": "sha256:4dc44755e8add7df9c89e4a801caa103341a52655ca5c49100cddedd52c18329",
  "signature": "MEUCIQCzjgKM+C3uoap+2/DMm87iCwTU7hxHvZQ93Tj+FKhthgIgU+WSvJo/0d7C7q1GkQ23FZnAssTXyxiUfebndh+jHts=",
  "signed_at": "2026-05-01T10:00:00Z",
  "expires_at": "2099-01-01T00:00:00Z",
  "domain": "example.com",
  "signer_kid": "vector-2026",
  "canonicalization": "schemapin-v1"
}
