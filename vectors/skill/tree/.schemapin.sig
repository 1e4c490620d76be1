{
  "schemapin_version": "1.4",
  "skill_name": "vector-skill",
  "skill_hash": "sha256:9c4462b4cd9f4f7f8131cf6451f514196d265653fbcc1d3963481fef4e77f6e9",
  "signature": "MEUCIQD5zRN1hjDIz0WWA1RD9TX+Oi0s815Qkps4aGdpJtcaFAIgP5RS3mqjwCkcVBCTwKcv8OOi3qSVC0IKAL+irV0Dlbg=",
  "signed_at": "2026-05-01T10:00:00Z",
  "expires_at": "2099-01-01T00:00:00Z",
  "schema_version": "1.0.0",
  "previous_hash": "sha256:43fb594901f8ded0471b7beebbe324568640857405d121a98764efeaee457176",
  "domain": "example.com",
  "signer_kid": "sha256:1dc2bb9547f8493e06987a3f06b478b8d143a6d56c976b5be8b2bcdceb4a1fc6",
  "file_manifest": {
    "SKILL.md": "sha256:6e691cea75016f7db09a19ac9f814d2d490feb994420f9e467deb23a027e6acd",
    "__proto__": "sha256:ff6b5e7714b9ecb4b9ccc87c145053c97386ae6557a9032f521c4242154129bb",
    "a-b.txt": "sha256:08a9fefae23f6ab10c027fa22aac0a19fb190a1cfa3427c92fda16e599d6818f",
    "a.txt": "sha256:c0b32b168ec2abd9f50c4c16776feb31a701f54dd7d4073294e7ef6234a48d07",
    "a/z.txt": "sha256:bff21c7821f29881f83221b95e6b50851d72c964682fc3e3eaec588ca0a8e9b0",
    "a0.txt": "sha256:e67e2352d6a755a942584e592786d0de87736189c228d386cfe337aef2c9fbff",
    "data/bytes.bin": "sha256:4eef968e98fea524cb344adbc649dbc7bb06deea950aaa9c255a60f77d5c9083",
    "data/empty.txt": "sha256:6935cb1da976ff50f2b4477b985e982198b6525a3c932f1c16bb55476c201834",
    "docs/ﬀ.txt": "sha256:1e355d62a76f6967963c674860ea4f2676c30a25b97b21cf94d7f9873da22620",
    "docs/😀.txt": "sha256:d9520464b2b7b8808f202ef45cb1c2793e2f82221dd9122e844f6e5acad41f79",
    "nested/.schemapin.sig": "sha256:9d7870ee394fe6ed81d39635a9846904350c0e0a1c2e91e3fff362a41d115685",
    "scripts/run.sh": "sha256:51fb571fb10c45f3f4fd32942c604fa34445ed49a308f427d9f4234b4c9354c6"
  }
}
