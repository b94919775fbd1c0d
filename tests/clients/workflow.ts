// The API workflow in TypeScript, typed by openapi-typescript's output for the
// OpenAPI document (`make clients` writes it to target/clients/typescript and
// compiles this file against it with `tsc --strict`): every body is the
// smallest one the docs show, every call goes through openapi-fetch's typed
// methods. A change of the document that a TypeScript client would notice (a
// field that became required, a route or response that went away, a union
// the compiler cannot narrow) fails that compilation.
//
// It is compiled, not run: tests/clients/workflow.py drives the same workflow
// through the generated Python client against the running service.
import createClient from "openapi-fetch";
import type { components, paths } from "interview-research-service";

type Schemas = components["schemas"];

export interface Credentials {
  baseUrl: string;
  partnerKey: string;
  partnerTenantId: string;
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) {
    throw new Error(`${what}: no data`);
  }
  return value;
}

export async function workflow({ baseUrl, partnerKey, partnerTenantId }: Credentials): Promise<void> {
  // 1. The partner creates a tenant (docs: README, section 1).
  const partner = createClient<paths>({
    baseUrl,
    headers: { "X-Api-Key": partnerKey, "X-Tenant-Id": partnerTenantId },
  });
  const created = await partner.POST("/v1/tenants", {
    body: { organization_name: "Acme Research", contact_email: "ops@acme.example" },
  });
  const tenant: Schemas["Tenant"] = required(created.data, "create tenant");

  // 2. The tenant's client.
  const api = createClient<paths>({
    baseUrl,
    headers: { "X-Api-Key": tenant.api_key, "X-Tenant-Id": tenant.tenant_id },
  });

  // 3. Projects: the smallest explicit body, a survey, and generated mode.
  const interview = await api.POST("/v1/projects", {
    body: {
      project_name: "Daycare choices",
      project_objective: "Understand how parents of toddlers choose a daycare",
      research_questions: "How did you choose your current daycare?",
      success_criteria: "Three recurring decision factors",
      recruiting_criteria: "Parents of children aged 1 to 3",
    },
  });
  const projectId: string = required(interview.data, "create project").project_id;

  // `satisfies`, not a type annotation: openapi-fetch's request types drop the
  // properties a block type only allows as null (openapi-typescript-helpers'
  // Writable takes them for read-only), so a value typed as the document's
  // SurveyBlock, with its `scale?: null`, would not fit a request body.
  const blocks = [
    { block_id: "why", type: "open_question", prompt: "Why did you choose us?" },
    { block_id: "plan", type: "single_choice", prompt: "Which plan?", options: ["Free", "Pro"] },
    { block_id: "score", type: "rating", prompt: "How likely are you to recommend us?", scale: "0-10" },
    { block_id: "thanks", type: "statement", prompt: "Thank you!" },
  ] satisfies Schemas["SurveyBlock"][];
  await api.POST("/v1/projects", {
    body: {
      project_type: "survey",
      project_name: "Plan survey",
      project_objective: "Learn why customers pick a plan",
      research_questions: "Why this plan?",
      success_criteria: "A reason per plan",
      recruiting_criteria: "Customers",
      survey_blocks: blocks,
    },
  });
  await api.POST("/v1/projects", {
    body: { creation_mode: "generated", prompt: "We want to learn how parents choose a daycare for toddlers." },
  });
  await api.POST("/v1/projects", {
    body: {
      creation_mode: "generated",
      prompt: "We want to learn why customers choose one plan over another.",
      project_type: "survey",
      survey_blocks: blocks,
    },
  });
  await api.POST("/v1/project/validate-context", {
    body: {
      project_objective: "Understand how parents of toddlers choose a daycare",
      research_questions: "How did you choose your current daycare?",
      success_criteria: "Three recurring decision factors",
      recruiting_criteria: "Parents of children aged 1 to 3",
    },
  });

  // 4. Patch, read, list a page, publish, both links.
  const path = { project_id: projectId };
  await api.PATCH("/v1/projects/{project_id}", {
    params: { path },
    body: { project_name: "Daycare choices (pilot)", secondary_color: "#222222" },
  });
  const project: Schemas["Project"] = required((await api.GET("/v1/projects/{project_id}", { params: { path } })).data, "read");
  const survey: Schemas["SurveyBlock"][] | undefined = project.survey_blocks;
  const page = required((await api.GET("/v1/projects", { params: { query: { limit: 2 } } })).data, "list");
  const names: string[] = page.data.map((item) => item.project_name);
  const next: string | null | undefined = page.next_cursor;
  const state = required((await api.POST("/v1/projects/{project_id}/activate", { params: { path } })).data, "activate");
  const status: "draft" | "active" | "paused" | "completed" = state.status;
  for (const environment of ["production", "sandbox"] as const) {
    const link = await api.GET("/v1/projects/{project_id}/url", { params: { path, query: { environment } } });
    required(link.data, "url").url.startsWith(baseUrl);
  }

  // 5. A session through the public session API: start, answer, record, finish.
  const sessions = createClient<paths>({ baseUrl });
  const started = required((await sessions.POST("/v1/sessions", { body: { project_id: projectId } })).data, "start");
  if ("screened_out" in started) {
    throw new Error("screened out");
  }
  const interviewId = started.interview_id;
  const bearer = { Authorization: `Bearer ${started.session_token}` };
  const session = { interview_id: interviewId };
  const answered = await sessions.POST("/v1/sessions/{interview_id}/answers", {
    params: { path: session },
    headers: bearer,
    body: { text: "We visited three daycares and chose the one closest to my office." },
  });
  const turns: Schemas["SessionTurn"][] = required(answered.data, "answer").turns;
  await sessions.PUT("/v1/sessions/{interview_id}/recordings/audio/{index}", {
    params: { path: { ...session, index: 0 } },
    headers: { ...bearer, "Content-Type": "audio/webm" },
    body: "",
    bodySerializer: () => new Blob([new Uint8Array([0x1a, 0x45, 0xdf, 0xa3])], { type: "audio/webm" }),
  });
  const finished = await sessions.POST("/v1/sessions/{interview_id}/finish", {
    params: { path: session },
    headers: bearer,
    body: {},
  });
  const ended: "completed" | "left" = required(finished.data, "finish").state;

  // 6. Interviews: the list with a metadata filter, the exports, the recording.
  const listed = await api.GET("/v1/interviews", {
    params: { query: { project_id: projectId, external_metadata: { plan: "pro" } } },
  });
  const ids: string[] = required(listed.data, "interviews").data.map((item) => item.interview_id);
  const csv: string = required(
    (await api.GET("/v1/projects/{project_id}/interviews-export", { params: { path }, parseAs: "text" })).data,
    "export",
  );
  await api.GET("/v1/projects/{project_id}/interviewees-export", { params: { path }, parseAs: "text" });
  const audio: Blob = required(
    (await api.GET("/v1/interviews/{interview_id}/audio-export", { params: { path: session }, parseAs: "blob" })).data,
    "audio",
  );

  // 7. Webhooks: the workspace secret, a subscription, its confirmation.
  await api.POST("/v1/webhooks/secrets", { body: { workspace_id: tenant.tenant_id } });
  const subscription = required(
    (
      await api.POST("/v1/webhooks/subscriptions", {
        body: { workspace_id: tenant.tenant_id, event_type: "interview.finished", target_url: "https://hooks.example.com/irs" },
      })
    ).data,
    "subscribe",
  );
  const confirmed = await api.POST("/v1/webhooks/subscriptions/{subscription_id}", {
    params: { path: { subscription_id: subscription.id } },
    body: { secret: subscription.x_hook_secret },
  });
  void [survey, names, next, status, turns, ended, ids, csv, audio, confirmed.data?.status];
}
