"""Signs the first recorded Converse request of
shared/fixtures/recorded/bedrock/converse_tool_use_reasoning (its URI, with
the model id `us.anthropic.claude-3-7-sonnet-20250219-v1:0`, and its body
bytes exactly as the cassette stored them) with botocore's SigV4Auth, AWS's
reference signer, at a fixed time with fixed test credentials. The cassette
scrubbed the real Authorization header, so this is the recorded request as
boto3 signs it. Output: bedrock_converse_colon.json beside this script.

    python3 -m venv venv && venv/bin/pip install botocore==1.44.8 pyyaml
    venv/bin/python bedrock_golden.py
"""
import datetime, json, pathlib, sys
from unittest import mock

import botocore, yaml
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

here = pathlib.Path(__file__).parent
cassette = here / "../../fixtures/recorded/bedrock/converse_tool_use_reasoning.yaml"
interaction = yaml.safe_load(cassette.read_text())["interactions"][0]["request"]
url, body = interaction["uri"], interaction["body"].encode()
credentials = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "session-token-EXAMPLE")
request = AWSRequest(method="POST", url=url, data=body, headers={"Content-Type": "application/json"})
signer = SigV4Auth(credentials, "bedrock", "us-east-1")
fixed = datetime.datetime(2025, 6, 15, 14, 26, 40)
with mock.patch("botocore.auth.get_current_datetime", return_value=fixed):
    # The canonical request as the signer builds it, before it adds the
    # Authorization header itself.
    canonical = []
    original = signer.canonical_request
    signer.canonical_request = lambda r: canonical.append(original(r)) or canonical[-1]
    signer.add_auth(request)
    canonical = canonical[0]
out = {
    "source": "botocore %s SigV4Auth over the recorded request (see bedrock_golden.py)" % botocore.__version__,
    "url": url,
    "body": interaction["body"],
    "region": "us-east-1",
    "service": "bedrock",
    "access_key_id": credentials.access_key,
    "secret_access_key": credentials.secret_key,
    "session_token": credentials.token,
    "unix_time": int(fixed.replace(tzinfo=datetime.timezone.utc).timestamp()),
    "x_amz_date": request.headers["X-Amz-Date"],
    "canonical_request": canonical,
    "authorization": request.headers["Authorization"],
}
(here / "bedrock_converse_colon.json").write_text(json.dumps(out, indent=2) + "\n")
print(json.dumps(out, indent=2))
