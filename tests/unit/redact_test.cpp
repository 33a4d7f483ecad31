// The Redactor of src/report/redact.hpp: what --redact masks, and what it must leave alone.
#include "report/redact.hpp"

#include <doctest/doctest.h>

#include <string>

using faultline::report::Redactor;

namespace {

std::string redact(const std::string& text) {
  Redactor redactor;
  return redactor.redact(text);
}

}  // namespace

TEST_CASE("IPv4 addresses are masked, with their port kept, the same address under the same alias") {
  CHECK(redact("connect to 10.0.0.12:29500 failed") == "connect to IP-1:29500 failed");
  CHECK(redact("NET/Socket : Using [0]eth0:172.31.4.9<45678>") == "NET/Socket : Using [0]eth0:IP-1<45678>");
  CHECK(redact("ip=10.1.2.3 peer 10.1.2.4 again 10.1.2.3") == "ip=IP-1 peer IP-2 again IP-1");
}

TEST_CASE("IPv6 addresses are masked, loopback and scoped ones too") {
  CHECK(redact("bind [::1]:29500") == "bind [IP-1]:29500");
  CHECK(redact("via fe80::42:acff:fe11:2%eth0 up") == "via IP-1 up");
  CHECK(redact("addr 2001:db8:0:0:0:0:2:1 ok") == "addr IP-1 ok");
}

TEST_CASE("MAC addresses are masked") {
  CHECK(redact("link/ether 02:42:ac:11:00:02 brd") == "link/ether MAC-1 brd");
  CHECK(redact("hw 0A-1B-2C-3D-4E-5F") == "hw MAC-1");
}

TEST_CASE("times, C++ scopes, versions with three parts and plain numbers are not addresses") {
  std::string line =
      "[W1129 10:22:30.123 ProcessGroupNCCL.cpp:1479] c10d::ProcessGroupNCCL std::vector NCCL 2.18.1";
  CHECK(redact(line) == line);
}

TEST_CASE("known hosts are masked as whole words, in order of first appearance, consistently") {
  Redactor redactor;
  redactor.add_hosts({"gpu-node-07", "gpu-node-03"});
  CHECK(redactor.redact("gpu-node-03: NCCL WARN x\ngpu-node-07:1234:1234 [0] y\ngpu-node-03 again") ==
        "host-1: NCCL WARN x\nhost-2:1234:1234 [0] y\nhost-1 again");
  CHECK(redactor.redact("later gpu-node-07.log and gpu-node-030") == "later host-2.log and gpu-node-030");
}

TEST_CASE("a known host right after a JSON escape is masked without breaking the escape") {
  Redactor redactor;
  redactor.add_hosts({"node-3"});
  CHECK(redactor.redact(R"({"message":"a\nnode-3: b"})") == R"({"message":"a\nhost-1: b"})");
}

TEST_CASE("FQDNs are masked as hosts; one whose first label is a known host takes its alias") {
  Redactor redactor;
  redactor.add_hosts({"node1"});
  CHECK(redactor.redact("node1 is node1.cluster.local, store at a.b.example.com") ==
        "host-1 is host-1, store at host-2");
  CHECK(redactor.redact("ip-10-0-3-7 joined") == "host-3 joined");
}

TEST_CASE("module names and file names are not FQDNs") {
  std::string line = "torch.distributed.elastic.multiprocessing.api train.py config.json huggingface.co";
  CHECK(redact(line) == line);
}

TEST_CASE("host= and MASTER_ADDR= values are masked as hosts") {
  CHECK(redact("hostname=trainer-a MASTER_ADDR=trainer-b host: trainer-a") ==
        "hostname=host-1 MASTER_ADDR=host-2 host: host-1");
}

TEST_CASE("user names in home paths are masked, and the same name elsewhere") {
  CHECK(redact("File \"/home/alice/train.py\", line 3; owner alice") ==
        "File \"/home/USER/train.py\", line 3; owner USER");
  CHECK(redact("/Users/bob/x and /root/y") == "/Users/USER/x and /root/y");
}

TEST_CASE("tokens of known shapes are masked") {
  std::string hf = "hf_" + std::string(30, 'a') + "B1";
  std::string text = "HF_TOKEN=" + hf + " sk-" + std::string(24, 'x') + " ghp_" + std::string(36, 'Z') +
                     " AKIAABCDEFGHIJKLMNOP";
  std::string masked = redact(text);
  CHECK(masked == "HF_TOKEN=REDACTED REDACTED REDACTED REDACTED");
}

TEST_CASE("Bearer tokens, Authorization headers and password/token/secret/api_key values are masked") {
  CHECK(redact("Authorization: Bearer abcdefghijklmnop123") == "Authorization: Bearer REDACTED");
  CHECK(redact("curl -H 'Authorization: Basic dXNlcjpwYXNz'") == "curl -H 'Authorization: Basic REDACTED'");
  CHECK(redact("password=hunter22 token: abc123 secret=\"s3cr3t\" api_key=zzz") ==
        "password=REDACTED token: REDACTED secret=\"REDACTED\" api_key=REDACTED");
  CHECK(redact(R"("password=\"x1\"")") == R"("password=\"REDACTED\"")");
  CHECK(redact("https://user:pa55@git.example.com/repo") == "https://REDACTED@host-1/repo");
}

TEST_CASE("long random values of env-like KEY=value lines are masked, words and numbers are not") {
  CHECK(redact("WANDB_KEY=Zx81kPq0LmN3vB7cD2eF9gH4") == "WANDB_KEY=REDACTED");
  CHECK(redact("CHECKSUM=0123456789abcdef0123456789abcdef") == "CHECKSUM=REDACTED");
  std::string kept =
      "NCCL_SOCKET_IFNAME=eth0 WORLD_SIZE=16 RUN_NAME=pretrain_llama_70b_stage2 MAX_TOKENS=4096";
  CHECK(redact(kept) == kept);
}

TEST_CASE("e-mail addresses are masked") {
  CHECK(redact("contact alice.smith+ml@corp.example.org now") == "contact EMAIL now");
}

TEST_CASE("ranks, SeqNums, sizes, pids and durations are never masked") {
  std::string line =
      "[rank3]:[E ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: "
      "WorkNCCL(SeqNum=123456, OpType=ALLREDUCE, NumelIn=268435456, NumelOut=268435456, Timeout(ms)=600000) "
      "ran for 600042 milliseconds; pid 48213; tokens: 4096; 1.5 GiB; world_size=16";
  CHECK(redact(line) == line);
}

TEST_CASE("redacted JSON stays JSON: replacements hold no quotes, backslashes or angle brackets") {
  Redactor redactor;
  redactor.add_hosts({"node-3"});
  std::string json = R"({"evidence":["node-3: 10.0.0.1 /home/alice hf_)" + std::string(24, 'q') +
                     R"( alice@example.com"],"token":"x"})";
  CHECK(redactor.redact(json) ==
        R"({"evidence":["host-1: IP-1 /home/USER REDACTED EMAIL"],"token":"REDACTED"})");
}

TEST_CASE("a token cut short by a report keeps none of itself") {
  CHECK(redact("HF token hf_Zq8Lm2…") == "HF token REDACTED…");
  CHECK(redact("key AKIAIOSF…") == "key REDACTED…");
  CHECK(redact("a word cut here…") == "a word cut here…");
}

TEST_CASE("values of options that name a secret are masked, in --opt value and --opt=value forms") {
  CHECK(redact("launch --password hunter2 --user bob") == "launch --password REDACTED --user bob");
  CHECK(redact("launch --password=123456 -p 8") == "launch --password=REDACTED -p 8");
  CHECK(redact("--hf-token hf_x1 --api-key abc --db-passwd 42") ==
        "--hf-token REDACTED --api-key REDACTED --db-passwd REDACTED");
  CHECK(redact("password: 123456") == "password: REDACTED");
  std::string kept = "--max-new-tokens 512 --num-tokens=4096 --tokenizer llama";
  CHECK(redact(kept) == kept);
}

TEST_CASE("AWS, GCP and Azure keys are masked") {
  CHECK(redact("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY") ==
        "aws_secret_access_key = REDACTED");
  CHECK(redact("creds ASIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY end") ==
        "creds REDACTED REDACTED end");
  CHECK(redact("key=AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW ok") == "key=REDACTED ok");
  CHECK(redact(
            "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;") ==
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=REDACTED;");
  CHECK(redact("https://acct.blob.core.windows.net/c/f?sv=2022&sig=AbC%2Fdef123") ==
        "https://host-1/c/f?sv=2022&sig=REDACTED");
}

TEST_CASE("credentials in URLs of every scheme are masked, a token alone too") {
  CHECK(redact("clone https://glpat-AbCdEfGhIjKlMnOpQrSt@gitlab.corp.com/x.git") ==
        "clone https://REDACTED@host-1/x.git");
  CHECK(redact("git clone https://ghp_abc123@github.com/org/repo") ==
        "git clone https://REDACTED@github.com/org/repo");
  CHECK(redact("redis://:s3cret@cache:6379 postgres://u:p@db/x") ==
        "redis://REDACTED@cache:6379 postgres://REDACTED@db/x");
}

TEST_CASE("JWTs are masked") {
  CHECK(
      redact(
          "token "
          "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U x") ==
      "token REDACTED x");
}

TEST_CASE("private key blocks are masked whole, across lines and in JSON strings") {
  std::string block =
      "-----BEGIN OPENSSH PRIVATE KEY-----\n"
      "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
      "QyNTUxOQAAACB7k2\n"
      "-----END OPENSSH PRIVATE KEY-----";
  CHECK(redact("key:\n" + block + "\ndone") == "key:\n[PRIVATE KEY REDACTED]\ndone");
  std::string json =
      R"({"text":"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1b2C3d4\n-----END RSA PRIVATE KEY-----"})";
  CHECK(redact(json) == R"({"text":"[PRIVATE KEY REDACTED]"})");
}

TEST_CASE("the body of a private key block whose end was cut is masked line by line") {
  CHECK(redact("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nAb3dE5fG7h") ==
        "-----BEGIN PRIVATE KEY-----\nREDACTED\nAb3dE5fG7h");
}

TEST_CASE("long base64 keys are masked, but paths, hashes and identifiers are not") {
  std::string kept =
      "/usr/lib/python3.10/site-packages/torch/distributed/elastic/multiprocessing/api.py "
      "0123456789abcdef0123456789abcdef01234567 ProcessGroupNCCL.cpp:1479 ncclUnhandledCudaError "
      "model.layers.31.self_attn.q_proj.weight torch.distributed.DistBackendError "
      "MyProject/Models/Llama3Model/Weights/Shard0/Final";
  CHECK(redact(kept) == kept);
}

TEST_CASE("a known host's FQDN is masked whole, its domain too, but its log file keeps its name") {
  Redactor redactor;
  redactor.add_hosts({"gpu-a1"});
  CHECK(redactor.redact("on gpu-a1.corp-internal.acme and gpu-a1.log") == "on host-1 and host-1.log");
}

TEST_CASE("user names in every path form are masked") {
  CHECK(redact("s3://bucket/users/alice/ckpt and /user/bob/x") ==
        "s3://bucket/users/USER/ckpt and /user/USER/x");
  CHECK(redact("C:\\Users\\carol\\run.log and ~dave/.cache") == "C:\\Users\\USER\\run.log and ~USER/.cache");
  CHECK(redact(R"({"path":"C:\\Users\\carol\\x"})") == R"({"path":"C:\\Users\\USER\\x"})");
  CHECK(redact("/scratch/erin/job then erin again") == "/scratch/USER/job then USER again");
  std::string kept = "c10d::ProcessGroupNCCL::~ProcessGroupNCCL() and ~WorkNCCL() ~/x";
  CHECK(redact(kept) == kept);
}

TEST_CASE("a user name learned from ~alice is masked in an s3 path") {
  Redactor redactor;
  CHECK(redactor.redact("cd ~alice") == "cd ~USER");
  CHECK(redactor.redact("s3://bucket/team/alice/ckpt") == "s3://bucket/team/USER/ckpt");
}
