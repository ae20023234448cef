// The labelling page's behaviour: show one draft, take the annotator's label, post it, move on.
"use strict";

const $ = (id) => document.getElementById(id);

const view = {
  index: 0, // the draft shown; equal to `progress.total` on the end page
  draft: null, // null on the end page
  spans: [], // {start, end, text} in code points, as Python counts; {from, to} in UTF-16
  progress: null, // the server's /api/state
  saving: false,
};

async function api(path, options) {
  let response;
  try {
    response = await fetch(path, options);
  } catch {
    throw new Error("The labelling server does not answer: is it still running?");
  }
  const body = await response.json();
  if (!response.ok) throw new Error(body.error);
  return body;
}

function say(text) {
  $("message").textContent = text;
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function showProgress(progress) {
  view.progress = progress;
  $("annotator").textContent = `— ${progress.annotator}`;
  $("progress").textContent = `${progress.labelled} of ${progress.total} labelled`;
  // Labels the server could not tie to their draft: said until each draft is labelled again.
  $("attention").hidden = progress.attention.length === 0;
  $("attention-list").replaceChildren(...progress.attention.map((line) => element("li", null, line)));
}

// The same lines the v3 judge reads: header, provenance, then the passage text.
function passageNode(passage) {
  const node = element("article", "passage");
  node.append(
    element("p", "passage-header",
      `[${passage.tag}] ${passage.agency} | ${passage.title} | ${passage.section}`),
    element("p", "provenance", `(source: ${passage.url}, fetched ${passage.fetched})`),
    element("p", "text", passage.text),
  );
  return node;
}

function turnNode(turn) {
  const node = element("li", "turn");
  node.append(element("span", "role", `${turn.role}:`), element("p", "text", turn.content));
  return node;
}

function clearForm() {
  view.spans = [];
  for (const radio of document.querySelectorAll("input[name=verdict]")) radio.checked = false;
  verdictChanged();
  for (const box of document.querySelectorAll("input[name=rule]")) box.checked = false;
  $("reason").value = "";
  $("rules-panel").open = false;
  say("");
  window.getSelection().removeAllRanges();
  renderSpans();
  renderRulesTicked();
}

function showDraft(shown) {
  const draft = shown.draft;
  view.index = shown.index;
  view.draft = draft;
  $("end").hidden = true;
  $("case").hidden = false;
  $("position").textContent = `Draft ${shown.index + 1} of ${view.progress.total} · ${draft.id}`;
  $("relabel").hidden = !shown.labelled;
  $("draft-attention").hidden = shown.attention.length === 0;
  $("draft-attention").replaceChildren(...shown.attention.map((line) => element("li", null, line)));
  $("turns-block").hidden = draft.prior_turns.length === 0;
  $("turns").replaceChildren(...draft.prior_turns.map(turnNode));
  $("passages").replaceChildren(...draft.passages.map(passageNode));
  $("question").textContent = draft.question;
  // One text node, exactly the answer: a selection's offsets in it are offsets in the answer.
  $("answer").replaceChildren(document.createTextNode(draft.answer));
  clearForm();
  window.scrollTo(0, 0);
}

function showEnd() {
  const { labelled, total } = view.progress;
  view.index = total;
  view.draft = null;
  $("case").hidden = true;
  $("end").hidden = false;
  $("end-text").textContent = labelled === total
    ? `All ${total} drafts labelled. Thank you! Press p to look back.`
    : `End of the drafts: ${total - labelled} of ${total} still unlabelled. ` +
      "Press n to go to the first of them.";
}

async function go(index) {
  try {
    if (index >= view.progress.total) {
      showEnd();
    } else {
      showDraft(await api(`/api/drafts/${index}`));
    }
  } catch (err) {
    say(err.message);
  }
}

function next() {
  if (view.draft) {
    go(view.index + 1);
  } else if (view.progress && view.progress.next !== null) {
    go(view.progress.next);
  }
}

function previous() {
  if (view.index > 0) go(view.index - 1);
}

function setVerdict(value) {
  if (!view.draft || verdict() === value) return;
  document.querySelector(`input[name=verdict][value=${value}]`).checked = true;
  verdictChanged();
}

function verdict() {
  const checked = document.querySelector("input[name=verdict]:checked");
  return checked ? checked.value : null;
}

const otherVerdict = (value) => (value === "grounded" ? "ungrounded" : "grounded");

// The response set's box names the verdict it would add; a new verdict starts it unticked,
// since what it named changed.
function verdictChanged() {
  const chosen = verdict();
  const box = $("defensible");
  box.checked = false;
  box.disabled = chosen === null;
  $("defensible-text").textContent = chosen === null
    ? "after choosing a verdict, mark the other one defensible too"
    : `${otherVerdict(chosen)} is defensible too`;
}

function toggleDefensible() {
  if (!view.draft || verdict() === null) return;
  $("defensible").checked = !$("defensible").checked;
}

// The verdicts the annotator finds defensible: their own, and the other one if ticked.
function responseSet(chosen) {
  return $("defensible").checked ? [chosen, otherVerdict(chosen)] : [chosen];
}

const codePoints = (text) => Array.from(text).length;

// A selection boundary as a UTF-16 offset into the answer, or null when it is outside it.
// A drag to the very end of the answer may end on the element itself, after its text node.
function answerOffset(container, offset) {
  const answer = $("answer");
  if (container === answer.firstChild) return offset;
  if (container === answer) return offset === 0 ? 0 : answer.firstChild.length;
  return null;
}

function selectedSpan() {
  const selection = window.getSelection();
  if (selection.rangeCount === 0 || selection.isCollapsed) {
    throw new Error("Select the unsupported text in the answer first.");
  }
  const range = selection.getRangeAt(0);
  const from = answerOffset(range.startContainer, range.startOffset);
  const to = answerOffset(range.endContainer, range.endOffset);
  if (from === null || to === null) {
    throw new Error("The selection runs outside the answer: select within the answer only.");
  }
  const text = view.draft.answer.slice(from, to);
  if (!text.trim()) throw new Error("The selection is only spacing: select the claim's words.");
  // Python counts code points, JavaScript UTF-16 units: they differ after an emoji.
  const start = codePoints(view.draft.answer.slice(0, from));
  return { start, end: start + codePoints(text), text, from, to };
}

function addSpan() {
  if (!view.draft) return;
  try {
    const span = selectedSpan();
    if (view.spans.some((s) => s.start === span.start && s.end === span.end)) {
      throw new Error("That span is already in the list.");
    }
    view.spans.push(span);
    view.spans.sort((a, b) => a.start - b.start || a.end - b.end);
    window.getSelection().removeAllRanges();
    setVerdict("ungrounded");
    say("");
    renderSpans();
  } catch (err) {
    say(err.message);
  }
}

function removeSpan(span) {
  view.spans = view.spans.filter((s) => s !== span);
  renderSpans();
}

function spanNode(span) {
  const node = element("li");
  const remove = element("button", "remove", "remove");
  remove.type = "button";
  remove.addEventListener("click", () => removeSpan(span));
  node.append(`[${span.start}:${span.end}] `, element("span", "span-text", span.text), " ", remove);
  return node;
}

function renderSpans() {
  $("spans").replaceChildren(...view.spans.map(spanNode));
  if (!window.CSS || !CSS.highlights) return;
  const text = $("answer").firstChild;
  const ranges = text ? view.spans.map((span) => {
    const range = new Range();
    range.setStart(text, span.from);
    range.setEnd(text, span.to);
    return range;
  }) : [];
  CSS.highlights.set("unsupported", new Highlight(...ranges));
}

function renderRules(rules) {
  $("rules").replaceChildren(...rules.map((rule) => {
    const label = element("label");
    const box = element("input");
    box.type = "checkbox";
    box.name = "rule";
    box.value = rule;
    box.addEventListener("change", renderRulesTicked);
    label.append(box, " ", element("code", null, rule));
    return label;
  }));
}

function renderRulesTicked() {
  const ticked = [...document.querySelectorAll("input[name=rule]:checked")].map((b) => b.value);
  $("rules-ticked").textContent = ticked.length ? `— ${ticked.join(", ")}` : "";
}

// What the server would refuse anyway, said before posting, in the annotator's words.
function formProblem(chosen, reason) {
  if (chosen === null) return "Choose grounded (g) or ungrounded (u).";
  if (chosen === "ungrounded" && view.spans.length === 0) {
    return "An ungrounded label needs a span: select the unsupported text and press a.";
  }
  if (chosen === "grounded" && view.spans.length > 0) {
    return "A grounded label has no spans: remove them or choose ungrounded.";
  }
  if (!reason) return "Give a one-line reason.";
  return null;
}

async function save() {
  if (!view.draft || view.saving) return;
  const chosen = verdict();
  const reason = $("reason").value.trim();
  const problem = formProblem(chosen, reason);
  if (problem) {
    say(problem);
    return;
  }
  const label = {
    case_id: view.draft.id,
    grounded: chosen === "grounded",
    spans: view.spans.map(({ start, end, text }) => ({ start, end, text })),
    reason,
    rules: [...document.querySelectorAll("input[name=rule]:checked")].map((b) => b.value),
    response_set: responseSet(chosen),
  };
  view.saving = true;
  try {
    const saved = await api("/api/labels", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(label),
    });
    showProgress(saved.state);
    // Out of the reason box, where saving leaves the focus: the next keys are shortcuts.
    document.activeElement.blur();
    await go(saved.state.next ?? saved.state.total);
  } catch (err) {
    say(`Not saved: ${err.message}`);
  } finally {
    view.saving = false;
  }
}

const typing = (target) =>
  (target instanceof HTMLInputElement && target.type === "text") ||
  target instanceof HTMLTextAreaElement ||
  target.isContentEditable;

const SHORTCUTS = {
  g: () => setVerdict("grounded"),
  u: () => setVerdict("ungrounded"),
  d: toggleDefensible,
  a: addSpan,
  r: () => view.draft && $("reason").focus(),
  n: next,
  p: previous,
};

function onKey(event) {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    save();
    return;
  }
  if (typing(event.target)) {
    if (event.key === "Escape") event.target.blur();
    return;
  }
  // Modified keys stay the browser's: Ctrl+C must still copy.
  const action = !(event.ctrlKey || event.metaKey || event.altKey) && SHORTCUTS[event.key];
  if (action) {
    event.preventDefault();
    action();
  }
}

async function start() {
  document.addEventListener("keydown", onKey);
  $("label-form").addEventListener("submit", (event) => {
    event.preventDefault();
    save();
  });
  for (const radio of document.querySelectorAll("input[name=verdict]")) {
    radio.addEventListener("change", verdictChanged);
  }
  $("add-span").addEventListener("click", addSpan);
  // Pressing the button must not clear the answer selection it is about to read.
  $("add-span").addEventListener("mousedown", (event) => event.preventDefault());
  $("next").addEventListener("click", next);
  $("prev").addEventListener("click", previous);
  try {
    const [guide, progress] = await Promise.all([api("/api/guide"), api("/api/state")]);
    $("guide").textContent = guide.text;
    renderRules(guide.rules);
    showProgress(progress);
    await go(progress.next ?? progress.total);
  } catch (err) {
    $("progress").textContent = err.message;
  }
}

start();
