#!/usr/bin/env python3
"""The API workflow through the generated Python client (openapi-python-client).

Run by tests/e2e/tests/clients.rs against a running service, with the client
generated from the document that service serves on PYTHONPATH:

    IRS_BASE_URL=http://127.0.0.1:3000 IRS_PARTNER_KEY=sk-partner-... \\
    IRS_PARTNER_TENANT_ID=<uuid> PYTHONPATH=target/clients/python python3 tests/clients/workflow.py

Every call goes through the client's typed functions (`sync_detailed`, whose
`parsed` is the documented model of the status answered): a partner creates a
tenant; the tenant creates projects (explicit and generated, interview and
survey), patches, reads and lists them, publishes one and gets both of its
links; an interviewee session is started, answered, recorded and finished;
the tenant lists the interview with a metadata filter, reads both exports and
the recording, and subscribes a confirmed webhook. Each step checks the
status and the model type; the facts the test asserts on are printed as one
JSON object on the last line.
"""
import csv
import io
import json
import os
import sys
from http import HTTPStatus

from interview_research_service_client import AuthenticatedClient, Client
from interview_research_service_client.api.interviews import (
    audio_export, export_interviewees, export_interviews, list_interviews)
from interview_research_service_client.api.projects import (
    activate_project, create_project, get_project, list_projects, project_url, update_project)
from interview_research_service_client.api.sessions import (
    answer_session, finish_session, put_audio_chunk, start_session)
from interview_research_service_client.api.tenants import create_tenant
from interview_research_service_client.api.webhooks import (
    confirm_subscription, create_subscription, create_webhook_secret, get_subscription)
from interview_research_service_client.models import (
    ChoiceBlock, ChoiceBlockType, GeneratedInterviewProjectCreate, GeneratedInterviewProjectCreateCreationMode,
    GeneratedSurveyProjectCreate, GeneratedSurveyProjectCreateCreationMode, GeneratedSurveyProjectCreateProjectType,
    InterviewList, InterviewProjectCreate, ListInterviewsExternalMetadata, OpenQuestionBlock,
    OpenQuestionBlockType, Project, ProjectCreateSettingsInterviewModesType0Item, ProjectId, ProjectList,
    ProjectState, ProjectStateStatus, ProjectUpdate, ProjectUrl, ProjectUrlEnvironment, RatingBlock,
    RatingBlockScaleType0, RatingBlockType, RecordingTotals,
    Session, SessionFinish, SessionFinished, SessionStart, SessionStarted, SessionStartExternalMetadataType0,
    SessionStartModeType0, Subscription, SubscriptionConfirm, SubscriptionConfirmed, SubscriptionCreate,
    SubscriptionCreated, SubscriptionCreateEventType, SurveyProjectCreate, SurveyProjectCreateProjectType, Tenant,
    TenantCreate, TextAnswer, WebhookSecret, WebhookSecretRequest)
from interview_research_service_client.types import File

BASE_URL = os.environ["IRS_BASE_URL"]
# The first bytes of a WebM file (the EBML magic number) and some payload.
WEBM_CHUNK = b"\x1a\x45\xdf\xa3" + bytes(range(60))
CONTEXT = {
    "project_objective": "Understand how parents of toddlers choose a daycare",
    "research_questions": "How did you choose your current daycare? What mattered most to you in that decision?",
    "success_criteria": "Three recurring decision factors, each backed by quotes from several parents",
    "recruiting_criteria": "Parents of children aged 1 to 3 who chose a daycare in the last year",
}


def call(function, status, model, **arguments):
    """Calls an operation's sync_detailed; the status and the parsed model must be the ones expected."""
    response = function.sync_detailed(**arguments)
    if response.status_code != status or not isinstance(response.parsed, model):
        raise AssertionError(f"{function.__name__}: expected {status.value} {model.__name__}, got "
                             f"{response.status_code.value} {type(response.parsed).__name__}: {response.content!r}")
    return response


def api_key_client(api_key, tenant_id):
    """The tenant's two headers: X-Api-Key as the client's token, X-Tenant-Id as a header."""
    return AuthenticatedClient(base_url=BASE_URL, token=api_key, prefix="", auth_header_name="X-Api-Key",
                               headers={"X-Tenant-Id": tenant_id}, raise_on_unexpected_status=True)


def main():
    facts = {}

    # 1. The partner creates a tenant.
    partner = api_key_client(os.environ["IRS_PARTNER_KEY"], os.environ["IRS_PARTNER_TENANT_ID"])
    tenant = call(create_tenant, HTTPStatus.CREATED, Tenant, client=partner, body=TenantCreate(
        organization_name="Acme Research (Python client)", contact_email="ops@acme.example")).parsed
    facts.update(tenant_id=str(tenant.tenant_id), api_key=tenant.api_key)
    api = api_key_client(tenant.api_key, str(tenant.tenant_id))

    # 2. Projects: explicit and generated, interview and survey.
    created = {}
    created["interview"] = call(create_project, HTTPStatus.CREATED, ProjectId, client=api, body=InterviewProjectCreate(
        project_name="Daycare choices", interview_modes=[ProjectCreateSettingsInterviewModesType0Item.TYPING],
        **CONTEXT)).parsed.project_id
    blocks = [
        OpenQuestionBlock(block_id="why", type_=OpenQuestionBlockType.OPEN_QUESTION, prompt="Why did you choose us?"),
        ChoiceBlock(block_id="plan", type_=ChoiceBlockType.SINGLE_CHOICE, prompt="Which plan?", options=["Free", "Pro"]),
        RatingBlock(block_id="score", type_=RatingBlockType.RATING, prompt="How likely are you to recommend us?",
                    scale=RatingBlockScaleType0.VALUE_1),
    ]
    created["survey"] = call(create_project, HTTPStatus.CREATED, ProjectId, client=api, body=SurveyProjectCreate(
        project_name="Plan survey", project_type=SurveyProjectCreateProjectType.SURVEY, survey_blocks=blocks,
        **CONTEXT)).parsed.project_id
    created["generated_interview"] = call(create_project, HTTPStatus.CREATED, ProjectId, client=api,
        body=GeneratedInterviewProjectCreate(creation_mode=GeneratedInterviewProjectCreateCreationMode.GENERATED,
                                             prompt="We want to learn how parents choose a daycare for toddlers.")
    ).parsed.project_id
    created["generated_survey"] = call(create_project, HTTPStatus.CREATED, ProjectId, client=api,
        body=GeneratedSurveyProjectCreate(creation_mode=GeneratedSurveyProjectCreateCreationMode.GENERATED,
                                          prompt="We want to learn why customers choose one plan over another.",
                                          project_type=GeneratedSurveyProjectCreateProjectType.SURVEY,
                                          survey_blocks=blocks)
    ).parsed.project_id
    facts["projects"] = {kind: str(project_id) for kind, project_id in created.items()}
    project_id = created["interview"]

    # 3. Patch, read back (both project types), list a page and the next.
    call(update_project, HTTPStatus.OK, ProjectId, project_id=project_id, client=api,
         body=ProjectUpdate(project_name="Daycare choices (pilot)", secondary_color="#222222"))
    project = call(get_project, HTTPStatus.OK, Project, project_id=project_id, client=api).parsed
    survey = call(get_project, HTTPStatus.OK, Project, project_id=created["survey"], client=api).parsed
    facts["read"] = {"project_name": project.project_name, "secondary_color": project.secondary_color,
                     "camera_access": project.camera_access.value, "status": project.status.value,
                     "survey_blocks": [type(block).__name__ for block in survey.survey_blocks]}
    first = call(list_projects, HTTPStatus.OK, ProjectList, client=api, limit=3).parsed
    second = call(list_projects, HTTPStatus.OK, ProjectList, client=api, limit=3, cursor=first.next_cursor).parsed
    facts["pages"] = [[str(item.project_id) for item in page.data] for page in (first, second)]

    # 4. Publish, and both links.
    state = call(activate_project, HTTPStatus.OK, ProjectState, project_id=project_id, client=api).parsed
    assert state.status == ProjectStateStatus.ACTIVE, state
    facts["status"] = state.status.value
    facts["urls"] = {environment.value: call(project_url, HTTPStatus.OK, ProjectUrl, project_id=project_id, client=api,
                                             environment=environment).parsed.url
                     for environment in ProjectUrlEnvironment}

    # 5. An interviewee's session through the public session API.
    started = call(start_session, HTTPStatus.CREATED, SessionStarted, client=Client(base_url=BASE_URL), body=SessionStart(
        project_id=project_id, mode=SessionStartModeType0.TYPING, identifier="ada@example.com",
        external_metadata=SessionStartExternalMetadataType0.from_dict({"plan": "pro"}))).parsed
    interview_id = started.interview_id
    session = AuthenticatedClient(base_url=BASE_URL, token=started.session_token, raise_on_unexpected_status=True)
    answered = call(answer_session, HTTPStatus.OK, Session, interview_id=interview_id, client=session,
                    body=TextAnswer(text="We visited three daycares and chose the one closest to my office.")).parsed
    totals = call(put_audio_chunk, HTTPStatus.OK, RecordingTotals, interview_id=interview_id, index=0, client=session,
                  body=File(payload=io.BytesIO(WEBM_CHUNK), mime_type="audio/webm")).parsed
    finished = call(finish_session, HTTPStatus.OK, SessionFinished, interview_id=interview_id, client=session,
                    body=SessionFinish(opt_in_for_followup=True)).parsed
    facts["session"] = {"interview_id": str(interview_id), "first_question": started.turns[0].text,
                        "turns_after_answer": len(answered.turns), "speakers": [t.speaker.value for t in answered.turns],
                        "recording": {"kind": totals.kind.value, "chunks": totals.chunks, "size": totals.size},
                        "finished": finished.state.value, "interview_status": finished.interview_status.value}

    # 6. The interview list with a metadata filter (the generator sends an
    #    object query parameter form-style, so its keys are the query names),
    #    the two exports and the recording.
    def listed(plan):
        metadata = ListInterviewsExternalMetadata.from_dict({"external_metadata[plan]": plan})
        page = call(list_interviews, HTTPStatus.OK, InterviewList, client=api, project_id=project_id,
                    external_metadata=metadata).parsed
        return [str(item.interview_id) for item in page.data]
    facts["listed"] = {"pro": listed("pro"), "free": listed("free")}
    interviews_csv = call(export_interviews, HTTPStatus.OK, str, project_id=project_id, client=api)
    interviewees_csv = call(export_interviewees, HTTPStatus.OK, str, project_id=project_id, client=api)
    facts["exports"] = {
        name: {"content_type": response.headers["content-type"], "header": ",".join(rows[0]), "rows": len(rows) - 1}
        for name, response in (("interviews", interviews_csv), ("interviewees", interviewees_csv))
        for rows in [list(csv.reader(io.StringIO(response.parsed)))]}
    audio = call(audio_export, HTTPStatus.OK, File, interview_id=interview_id, client=api)
    facts["audio"] = {"content_type": audio.headers["content-type"],
                      "same_bytes": audio.parsed.payload.read() == WEBM_CHUNK}

    # 7. Webhooks: the workspace secret, a subscription, its confirmation.
    workspace = str(tenant.tenant_id)
    secret = call(create_webhook_secret, HTTPStatus.CREATED, WebhookSecret, client=api,
                  body=WebhookSecretRequest(workspace_id=workspace)).parsed
    subscription = call(create_subscription, HTTPStatus.CREATED, SubscriptionCreated, client=api,
                        body=SubscriptionCreate(workspace_id=workspace,
                                                event_type=SubscriptionCreateEventType.INTERVIEW_FINISHED,
                                                target_url="https://example.com/hooks")).parsed
    confirmed = call(confirm_subscription, HTTPStatus.OK, SubscriptionConfirmed, subscription_id=subscription.id,
                     client=api, body=SubscriptionConfirm(secret=subscription.x_hook_secret)).parsed
    read = call(get_subscription, HTTPStatus.OK, Subscription, subscription_id=subscription.id, client=api).parsed
    facts["webhooks"] = {"secret_prefix": secret.secret[:6], "subscription_id": subscription.id,
                         "confirmed": confirmed.status, "read_status": read.status.value}

    print(json.dumps(facts, sort_keys=True))


if __name__ == "__main__":
    sys.exit(main())
