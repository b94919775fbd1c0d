#!/usr/bin/env python3
"""Seeds a running service for the fuzzer and writes its configuration.

Usage: seed.py <origin, e.g. http://127.0.0.1:PORT> <partner key> <partner tenant id> <out dir>
       (FUZZ_OPERATOR_TOKEN: the host's maintenance_token, for the OperatorToken scheme)

Through the public API only, it creates a tenant (with the partnership key)
and, in it, one real resource for every path parameter the OpenAPI document
has, so that the fuzzer reaches every operation beyond its 404:

  project_id       a contextual interview project, activated (its own
                   project for update_project, a survey for the survey
                   operations: see PROJECT_BY_OPERATION)
  file_id          a PNG uploaded with purpose survey (shown by the survey)
  subscription_id  a subscription to project.published, confirmed
  delivery_id      the delivery of the project.published event raised by
                   activating a project after that confirmation; failed
                   (the target cannot answer 200), so it can be redelivered
  interview_id     a production session of the active project, with one
                   answer and one audio and one video chunk
  file             (of /i/assets) the interview page's entry module, by the
                   content-hashed name the project's page links

The parameter names are read from the document: a string path parameter
without an enumeration that has no value here is an error, so that a new
route cannot silently be fuzzed against 404s only. Parameters the schema
fully constrains (enumerations, integers: `index`) are left to the
generator. The paged lists get a real `cursor` (the next_cursor of a first
page): a cursor is opaque, only one the list returned is valid.

Writes to <out dir>:
  schemathesis.toml  a credential for each security scheme of the document
                     (an error when one has none): the tenant's X-Api-Key /
                     X-Tenant-Id (ApiKey / TenantId), the session token
                     (SessionToken), the operator token; the partnership
                     key as headers of create_tenant, the ids as fixed path
                     parameter values, and the hooks file
  seed.json          the same values, for hooks.py
  openapi.json       the document served, for summary.py
"""
import json
import os
import struct
import sys
import time
import urllib.error
import urllib.request
import uuid
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))

# Operations whose project_id is not the main (active interview) project.
# update_project gets a project of its own so that random merge patches
# (languages, modes, max_interviews, ...) do not change the project every
# other operation uses; the survey operations need a survey project.
PROJECT_BY_OPERATION = {
    "update_project": "patch_project_id",
    "survey_results": "survey_project_id",
    "survey_media": "survey_project_id",
}

# Schemathesis's defaults (4.32: config/_checks.py), extended where a refusal
# depends on state or secrets rather than on the request's shape.
POSITIVE_DEFAULT = ["2xx", "3xx", "401", "403", "404", "409", "429", "5xx"]
NEGATIVE_DEFAULT = ["400", "401", "403", "404", "405", "406", "409", "415", "422", "428", "429", "5xx"]
# 410: the project is completed or reached max_interviews (sessions, the
# interview page): like the default 404 and 409, a refusal for the
# resource's state, whatever the request. 416: a Range beyond the end of the
# file or recording; its size is state too.
STATE_REFUSALS = ["410", "416"]
EXPECTED_STATUSES = {
    None: {  # every operation
        "positive_data_acceptance": POSITIVE_DEFAULT + STATE_REFUSALS,
        "negative_data_rejection": NEGATIVE_DEFAULT + STATE_REFUSALS,
    },
    # The confirmation secret must equal the subscription's one-time
    # X-Hook-Secret (400 invalid_secret otherwise): a value, not a shape.
    "confirm_subscription": {"positive_data_acceptance": POSITIVE_DEFAULT + STATE_REFUSALS + ["400"]},
    # 503 transcription_unavailable is the documented answer when no
    # speech-to-text model is configured, as on this host (llm_provider=none).
    "transcribe_answer": {"not_a_server_error": ["2xx", "3xx", "4xx", "503"]},
}

CONTEXT = {
    "project_objective": "Understand why shoppers abandon the checkout on mobile devices",
    "research_questions": "Why do shoppers leave the checkout? What would make them finish?",
    "success_criteria": "Three validated reasons for abandonment with supporting quotes",
    "recruiting_criteria": "Online shoppers aged 25-45 who bought on mobile in the last month",
}

HOOK_TARGET = "https://example.com/hook"

# The paged lists, whose cursor must be one the list returned.
CURSOR_OPERATIONS = {"list_projects": "/v1/projects", "list_interviews": "/v1/interviews"}

# Operations that use their resource up: hooks.py gives each call a fresh one.
FRESH_OPERATIONS = ("complete_project", "deactivate_project", "delete_subscription", "finish_session", "erase_interview")
# Other operations hooks.py knows by name.
HOOKED_OPERATIONS = ("start_session", "put_audio_chunk", "put_video_chunk", "confirm_subscription",
                     "create_webhook_secret", "upload_file", "create_subscription", "create_project")


class SeedError(Exception):
    pass


def main():
    origin, partner_key, partner_tenant, out_dir = sys.argv[1:5]
    try:
        seed(Api(origin), partner_key, partner_tenant, out_dir)
    except SeedError as error:
        print(f"fuzz seed: {error}", file=sys.stderr)
        sys.exit(1)


def seed(api, partner_key, partner_tenant, out_dir):
    document = api.call("GET", "/v1/openapi.json")
    path_params, operation_ids = path_parameters(document)
    for op_id in (*PROJECT_BY_OPERATION, *FRESH_OPERATIONS, *HOOKED_OPERATIONS, *CURSOR_OPERATIONS,
                  *filter(None, EXPECTED_STATUSES)):
        if op_id not in operation_ids:
            raise SeedError(f"operation {op_id} is no longer in the document: update scripts/fuzz")

    tenant = new_tenant(api, partner_key, partner_tenant)
    auth = {"X-Api-Key": tenant["api_key"], "X-Tenant-Id": tenant["tenant_id"]}

    # A file, then the webhook secret and a confirmed subscription, before
    # any activation, so that the activations below make deliveries.
    file_id = upload_png(api, auth)["file_id"]
    api.call("POST", "/v1/webhooks/secrets", headers=auth, expect=201,
             body={"workspace_id": tenant["tenant_id"]})
    subscription = new_subscription(api, auth, tenant["tenant_id"])
    api.call("POST", f"/v1/webhooks/subscriptions/{subscription['id']}", headers=auth,
             body={"secret": subscription["x_hook_secret"]})

    project_id = new_project(api, auth, activate=True)
    patch_project_id = new_project(api, auth, activate=True)
    survey_project_id = new_project(api, auth, activate=True, extra={
        "project_type": "survey",
        "project_name": "Fuzz survey project",
        "interview_modes": ["typing"],
        "survey_blocks": [
            {"block_id": "why", "type": "open_question", "prompt": "Why did you choose us?"},
            {"block_id": "plan", "type": "single_choice", "prompt": "Which plan?", "options": ["Free", "Pro"]},
            {"block_id": "logo", "type": "rating", "prompt": "How much do you like it?",
             "media": {"file_id": file_id}},
        ],
    })

    # A production interview of the main project, with content to export.
    interview_id, token = new_session(api, project_id)
    bearer = {"Authorization": f"Bearer {token}"}
    api.call("POST", f"/v1/sessions/{interview_id}/answers", headers=bearer,
             body={"text": "The shipping costs appear too late, so I left."})
    webm = b"\x1a\x45\xdf\xa3" + bytes(252)
    api.call("PUT", f"/v1/sessions/{interview_id}/recordings/audio/0", headers=bearer, raw=(webm, "audio/webm"))
    api.call("PUT", f"/v1/sessions/{interview_id}/recordings/video/0", headers=bearer, raw=(webm, "video/webm"))
    # The project update_project edits has an interview too, as a running
    # project has (some changes are refused then).
    new_session(api, patch_project_id)

    # The delivery of the first project.published event, once failed (the
    # host runs with short retry delays; example.com cannot answer 200).
    delivery = wait_for_failed_delivery(api, auth, subscription["id"])

    # A cursor of each paged list (the tenant has several projects and
    # production interviews, so a page of one has a next one).
    cursors = {}
    for op_id, path in CURSOR_OPERATIONS.items():
        cursors[op_id] = api.call("GET", f"{path}?limit=1", headers=auth).get("next_cursor")
        if not cursors[op_id]:
            raise SeedError(f"GET {path}?limit=1 gave no next_cursor")

    values = {
        "project_id": project_id,
        "file_id": file_id,
        "file": page_module(api, project_id),
        "subscription_id": subscription["id"],
        "delivery_id": delivery["id"],
        "interview_id": interview_id,
    }
    for name, uses in sorted(path_params.items()):
        for label, schema in uses:
            if name not in values and not constrained(resolve(document, schema)):
                raise SeedError(f"path parameter {name} of {label} has no seeded value: add one to scripts/fuzz/seed.py")

    # A credential for every security scheme of the document.
    credentials = {"ApiKey": tenant["api_key"], "TenantId": tenant["tenant_id"], "SessionToken": token}
    if os.environ.get("FUZZ_OPERATOR_TOKEN"):
        credentials["OperatorToken"] = os.environ["FUZZ_OPERATOR_TOKEN"]
    schemes = {}
    for name, scheme in document.get("components", {}).get("securitySchemes", {}).items():
        kind = "api_key" if scheme.get("type") == "apiKey" else (
            "bearer" if scheme.get("type") == "http" and scheme.get("scheme", "").lower() == "bearer" else None)
        if name not in credentials or kind is None:
            raise SeedError(f"security scheme {name} ({json.dumps(scheme)}) has no credential: add one to scripts/fuzz")
        schemes[name] = (kind, credentials[name])

    with open(os.path.join(out_dir, "openapi.json"), "w") as out:
        json.dump(document, out)
    state = {
        "origin": api.origin,
        "partner_key": partner_key,
        "partner_tenant_id": partner_tenant,
        "schemes": schemes,
        "binary_media_types": binary_media_types(document),
        "tenant_id": tenant["tenant_id"],
        "api_key": tenant["api_key"],
        "session_token": token,
        "patch_project_id": patch_project_id,
        "survey_project_id": survey_project_id,
        "cursors": cursors,
        **values,
    }
    with open(os.path.join(out_dir, "seed.json"), "w") as out:
        json.dump(state, out, indent=1)
    with open(os.path.join(out_dir, "schemathesis.toml"), "w") as out:
        out.write(config_toml(state, partner_key, partner_tenant))
    hidden = ("origin", "schemes", "api_key", "session_token", "binary_media_types", "partner_key", "partner_tenant_id",
              "cursors")
    shown = {k: v for k, v in state.items() if k not in hidden}
    print("fuzz seed: " + ", ".join(f"{k}={v}" for k, v in shown.items()))
    print("fuzz seed: path parameters of the document: " + ", ".join(
        f"{name} ({'seeded' if name in values else 'generated from ' + json.dumps(uses[0][1])})"
        for name, uses in sorted(path_params.items())))


def path_parameters(document):
    """{name: [(operation label, schema)]} of the path parameters, and the operation ids."""
    params_by_name, operation_ids = {}, set()
    for path, item in document["paths"].items():
        for method, op in item.items():
            if method not in ("get", "put", "post", "delete", "patch", "head", "options", "trace"):
                continue
            operation_ids.add(op.get("operationId"))
            for param in list(item.get("parameters", [])) + list(op.get("parameters", [])):
                param = resolve(document, param)
                if param.get("in") == "path":
                    params_by_name.setdefault(param["name"], []).append(
                        (f"{method.upper()} {path}", param.get("schema", {})))
    return params_by_name, operation_ids


def binary_media_types(document):
    """Request body media types whose schema is a plain string of bytes (audio, video)."""
    found = set()
    for item in document["paths"].values():
        for op in item.values():
            if not isinstance(op, dict):
                continue
            for media_type, content in resolve(document, op.get("requestBody", {})).get("content", {}).items():
                schema = resolve(document, content.get("schema", {}))
                if schema.get("type") == "string" and not media_type.startswith(("text/", "application/")):
                    found.add(media_type)
    return sorted(found)


def constrained(schema):
    """A schema whose every value the generator produces is meaningful."""
    return "enum" in schema or "const" in schema or schema.get("type") in ("integer", "number", "boolean")


def config_toml(state, partner_key, partner_tenant):
    q = json.dumps  # a JSON string is a valid TOML basic string
    names = ("project_id", "file_id", "file", "subscription_id", "delivery_id", "interview_id")
    values = {name: state[name] for name in names}
    lines = [
        "# Written by scripts/fuzz/seed.py for one run; holds throwaway credentials.",
        f"hooks = {q(os.path.join(HERE, 'hooks.py'))}",
        "",
    ]
    for name, (kind, value) in state["schemes"].items():
        lines += [f"[auth.openapi.{name}]", f"{kind} = {q(value)}"]
    lines += ["", "[parameters]"]
    lines += [f"{q('path.' + name)} = {q(value)}" for name, value in values.items()]
    for op_id, key in PROJECT_BY_OPERATION.items():
        lines += ["", "[[operations]]", f"include-operation-id = {q(op_id)}", "[operations.parameters]"]
        lines += [f"{q('path.' + name)} = {q(value)}" for name, value in {**values, "project_id": state[key]}.items()]
    for op_id, cursor in state["cursors"].items():
        lines += ["", "[[operations]]", f"include-operation-id = {q(op_id)}", "[operations.parameters]",
                  f'"query.cursor" = {q(cursor)}']
    # Tenant creation takes the partnership key; per-operation auth only
    # knows basic credentials, hence headers.
    lines += ["", "[[operations]]", 'include-operation-id = "create_tenant"', "[operations.headers]",
              f'"X-Api-Key" = {q(partner_key)}', f'"X-Tenant-Id" = {q(partner_tenant)}']
    # Statuses a check accepts beyond its defaults, each for a reason the
    # document states and no schema can express (see EXPECTED_STATUSES).
    for op_id, checks in EXPECTED_STATUSES.items():
        prefix = "checks" if op_id is None else "operations.checks"
        if op_id is not None:
            lines += ["", "[[operations]]", f"include-operation-id = {q(op_id)}"]
        for check, statuses in checks.items():
            lines += [f"[{prefix}.{check}]", f"expected-statuses = {q(statuses)}"]
    return "\n".join(lines) + "\n"


def resolve(document, node):
    while isinstance(node, dict) and "$ref" in node:
        target = document
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


# Resources, also made by hooks.py for the operations that use theirs up.

def new_tenant(api, partner_key, partner_tenant):
    partner = {"X-Api-Key": partner_key, "X-Tenant-Id": partner_tenant}
    return api.call("POST", "/v1/tenants", headers=partner, expect=201, body={
        "organization_name": f"Fuzz {uuid.uuid4()}",
        "contact_email": "fuzz@example.com",
        "description": "Created by make fuzz",
    })


def new_project(api, auth, activate, extra=None):
    body = {
        "project_name": "Fuzz interview project",
        "interview_modes": ["typing", "talking"],
        "interview_languages": ["en", "de"],
        "camera_access": "optional",
        "max_interviews": 100000,
        **CONTEXT,
        **(extra or {}),
    }
    project_id = api.call("POST", "/v1/projects", headers=auth, expect=201, body=body)["project_id"]
    if activate:
        api.call("POST", f"/v1/projects/{project_id}/activate", headers=auth)
    return project_id


def new_subscription(api, auth, workspace_id):
    return api.call("POST", "/v1/webhooks/subscriptions", headers=auth, expect=201, body={
        "workspace_id": workspace_id, "event_type": "project.published", "target_url": HOOK_TARGET,
    })


def new_session(api, project_id):
    session = api.call("POST", "/v1/sessions", expect=201, body={
        "project_id": project_id, "environment": "production", "mode": "typing",
        "identifier": "fuzz@example.com", "country_code": "DE", "external_metadata": {"plan": "pro"},
    })
    return session["interview_id"], session["session_token"]


def wait_for_failed_delivery(api, auth, subscription_id, timeout=90):
    deadline = time.monotonic() + timeout
    deliveries = []
    while time.monotonic() < deadline:
        deliveries = api.call("GET", f"/v1/webhooks/deliveries?subscription_id={subscription_id}", headers=auth)
        for delivery in deliveries:
            if delivery["status"] in ("failed", "delivered"):
                return delivery
        time.sleep(1)
    if deliveries:
        print(f"fuzz seed: warning: delivery {deliveries[0]['id']} is still {deliveries[0]['status']}", file=sys.stderr)
        return deliveries[0]
    raise SeedError("activating a project after confirming a subscription made no delivery")


def upload_png(api, headers):
    boundary = uuid.uuid4().hex
    parts = [
        ("file", png_1x1(), 'filename="fuzz.png"', "image/png"),
        ("mime_type", b"image/png", None, None),
        ("purpose", b"survey", None, None),
    ]
    body = b""
    for name, value, extra, ctype in parts:
        body += f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"'.encode()
        body += (f"; {extra}" if extra else "").encode() + b"\r\n"
        body += (f"Content-Type: {ctype}\r\n" if ctype else "").encode() + b"\r\n" + value + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    return api.call("POST", "/v1/files", headers=headers, raw=(body, f"multipart/form-data; boundary={boundary}"))


def page_module(api, project_id):
    """The content-hashed name of the module the project's interview page runs."""
    page = api.call("GET", f"/i/{project_id}", parse=False).decode()
    marker = '<script type="module" src="/i/assets/'
    if marker not in page:
        raise SeedError(f"GET /i/{project_id}: no module script in the page")
    return page.split(marker, 1)[1].split('"', 1)[0]


def png_1x1():
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    pixels = zlib.compress(b"\x00\x67\x59\xdf\xff")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


class Api:
    def __init__(self, origin):
        self.origin = origin.rstrip("/")

    def call(self, method, path, headers=None, body=None, raw=None, expect=200, parse=True):
        data, content_type = None, None
        if body is not None:
            data, content_type = json.dumps(body).encode(), "application/json"
        elif raw is not None:
            data, content_type = raw
        request = urllib.request.Request(self.origin + path, data=data, method=method)
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        if content_type:
            request.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                status, text = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read()
        except (urllib.error.URLError, OSError) as error:
            raise SeedError(f"{method} {path}: {error}") from None
        if status != expect:
            raise SeedError(f"{method} {path}: expected {expect}, got {status}: {text[:500]!r}")
        if not parse:
            return text
        return json.loads(text) if text else None


if __name__ == "__main__":
    main()
