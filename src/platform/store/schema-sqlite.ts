/**
 * The schema's changes in SQLite's dialect, one constant per version (migrations.ts lists them with
 * their PostgreSQL twins in schema-postgres.ts). Never edit one that has shipped: add a version.
 */

export const V1 = `
CREATE TABLE session (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  parent_id TEXT REFERENCES session (id) ON DELETE CASCADE,
  agent TEXT NOT NULL,
  title TEXT NOT NULL,
  time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL
) STRICT;
CREATE INDEX session_project ON session (project_id, time_updated);
CREATE INDEX session_parent ON session (parent_id) WHERE parent_id IS NOT NULL;

CREATE TABLE message (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
  role TEXT NOT NULL,
  data TEXT NOT NULL,
  time INTEGER NOT NULL
) STRICT;
CREATE INDEX message_session ON message (session_id, time);

-- One row per open store: who may still be working on an open part or a pending ask.
CREATE TABLE owner (
  id TEXT PRIMARY KEY,
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  time_started INTEGER NOT NULL
) STRICT;

-- Keyed by the ids the runner supplies; no foreign key to session, so a library user can journal
-- calls without creating sessions first. sessions.remove() deletes a session's rows explicitly.
CREATE TABLE part (
  id TEXT NOT NULL UNIQUE,
  session_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  call_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  -- OR chains, not IN lists: SQLite builds a temporary table for each IN check (~3 µs a row).
  status TEXT NOT NULL
    CHECK (status = 'pending' OR status = 'running' OR status = 'completed' OR status = 'error'),
  data TEXT NOT NULL,
  owner TEXT,
  time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL,
  UNIQUE (session_id, call_id)
) STRICT;
CREATE INDEX part_open ON part (status) WHERE status IN ('pending', 'running');

CREATE TABLE permission_approval (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  permission TEXT NOT NULL,
  pattern TEXT NOT NULL,
  time INTEGER NOT NULL,
  UNIQUE (project_id, permission, pattern)
) STRICT;

CREATE TABLE read_ledger (
  session_id TEXT NOT NULL,
  path TEXT NOT NULL,
  hash TEXT NOT NULL,
  mtime REAL NOT NULL,
  size INTEGER NOT NULL,
  time INTEGER NOT NULL,
  PRIMARY KEY (session_id, path)
) STRICT, WITHOUT ROWID;

CREATE TABLE todo (
  session_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (session_id, position)
) STRICT, WITHOUT ROWID;

CREATE TABLE journal (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL,
  call_id TEXT,
  kind TEXT NOT NULL CHECK (
    kind = 'requested' OR kind = 'asked' OR kind = 'decided' OR kind = 'started'
    OR kind = 'progress' OR kind = 'finished' OR kind = 'interrupted'
  ),
  data TEXT NOT NULL,
  time INTEGER NOT NULL
) STRICT;
CREATE INDEX journal_call ON journal (session_id, call_id, seq);

CREATE TABLE pending_ask (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  call_id TEXT,
  data TEXT NOT NULL,
  owner TEXT,
  time INTEGER NOT NULL
) STRICT;
CREATE INDEX pending_ask_session ON pending_ask (session_id, time);
`

/** MCP tool definitions as they were when first approved, per project (drift pinning). */
export const V2 = `
CREATE TABLE mcp_pin (
  project_id TEXT NOT NULL,
  server TEXT NOT NULL,
  tool TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  definition TEXT NOT NULL,
  time INTEGER NOT NULL,
  PRIMARY KEY (project_id, server, tool)
) STRICT, WITHOUT ROWID;
`

/**
 * A finished part's output in a column of its own: the part's JSON keeps an empty `output`, so storing a
 * 40 KB output no longer escapes it into JSON (a third of a read call's journal time). Rows written
 * before keep their output in the JSON and NULL here.
 */
export const V3 = `
ALTER TABLE part ADD COLUMN output TEXT;
`

/**
 * Crash recovery that can tell a dead owner from a reused pid, and that tells each session once:
 * - `owner.start`: the process's start time (clock ticks since boot, "0" when unknown), so an owner
 *   whose pid now names another process counts as dead;
 * - `interrupted_call`: calls recovery closed as interrupted that their session has not been told
 *   about yet (the next call of that session reports them and deletes the rows).
 */
export const V4 = `
ALTER TABLE owner ADD COLUMN start TEXT NOT NULL DEFAULT '0';
CREATE TABLE interrupted_call (
  session_id TEXT NOT NULL,
  call_id TEXT NOT NULL,
  time INTEGER NOT NULL,
  PRIMARY KEY (session_id, call_id)
) STRICT, WITHOUT ROWID;
`

/**
 * What each session has been shown once (the instruction files `read` attaches): kept with the session,
 * so `toolbelt call --session`, MCP and the library agree on what a session has seen.
 */
export const V5 = `
CREATE TABLE session_seen (
  session_id TEXT NOT NULL,
  key TEXT NOT NULL,
  time INTEGER NOT NULL,
  PRIMARY KEY (session_id, key)
) STRICT, WITHOUT ROWID;
`

/**
 * The agent each session runs as now, once a mode switch (plan mode) or an explicit choice set it: kept
 * apart from `session.agent` (the agent a session was created with) because sessions of `toolbelt call
 * --session` and of MCP connections have no session row.
 */
export const V6 = `
CREATE TABLE session_agent (
  session_id TEXT PRIMARY KEY,
  agent TEXT NOT NULL,
  time INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
`

/**
 * A subagent's session carries its own permission rules (the parent's denials, the tools a subagent may
 * not use), as JSON: a session resumed in another process keeps them. NULL for every other session.
 */
export const V7 = `
ALTER TABLE session ADD COLUMN permission TEXT;
`

/**
 * An explicit order for parts (`seq`): they were listed in `rowid` order, which PostgreSQL does not
 * have. The table is rebuilt with `seq` as its integer primary key, so `seq` is the old rowid (the
 * order is kept) and new rows get the next one by themselves, as PostgreSQL's identity column does.
 */
export const V8 = `
CREATE TABLE part_v8 (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  session_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  call_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  status TEXT NOT NULL
    CHECK (status = 'pending' OR status = 'running' OR status = 'completed' OR status = 'error'),
  data TEXT NOT NULL,
  owner TEXT,
  time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL,
  output TEXT,
  UNIQUE (session_id, call_id)
) STRICT;
INSERT INTO part_v8 (seq, id, session_id, message_id, call_id, tool, status, data, owner, time_created, time_updated, output)
  SELECT rowid, id, session_id, message_id, call_id, tool, status, data, owner, time_created, time_updated, output
  FROM part;
DROP TABLE part;
ALTER TABLE part_v8 RENAME TO part;
CREATE INDEX part_open ON part (status) WHERE status IN ('pending', 'running');
`

/**
 * The fleet (issue 28). A session records the host that created it (its project is `project_id`). On a
 * shared PostgreSQL store, every serve instance appends the events it publishes to `event`, numbered
 * `seq` in one order for the whole store, and tails it; `store_identity` names the store in SSE ids, so
 * a `Last-Event-ID` from one instance resumes on another. SQLite has the tables too (one schema), unused.
 */
export const V9 = `
ALTER TABLE session ADD COLUMN host TEXT;
CREATE INDEX session_host ON session (host, time_updated);
CREATE TABLE event (
  seq INTEGER PRIMARY KEY,
  type TEXT NOT NULL,
  session_id TEXT,
  data TEXT NOT NULL,
  time INTEGER NOT NULL
) STRICT;
CREATE INDEX event_time ON event (time);
CREATE TABLE store_identity (id TEXT NOT NULL) STRICT;
INSERT INTO store_identity (id) VALUES (lower(hex(randomblob(8))));
`

/**
 * Asks across the fleet (issue 28). Each owner holds a lease: `heartbeat` (epoch ms), renewed while its
 * store is open, so other hosts can tell a dead owner from a live one (owners.ts). A reply given on one
 * instance for an ask another raised waits in `ask_reply` until the raising owner applies it
 * (ask-replies.ts); so does an answer to a question, whose pending ones the fleet lists from
 * `pending_question`. SQLite has them too (one schema); its owners are judged by their process.
 */
export const V10 = `
ALTER TABLE owner ADD COLUMN heartbeat INTEGER;
CREATE TABLE ask_reply (
  request_id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  data TEXT NOT NULL,
  time INTEGER NOT NULL
) STRICT;
CREATE INDEX ask_reply_owner ON ask_reply (owner);
CREATE TABLE pending_question (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  data TEXT NOT NULL,
  owner TEXT NOT NULL,
  time INTEGER NOT NULL
) STRICT;
CREATE INDEX pending_question_session ON pending_question (session_id, time);
`

/**
 * Full outputs of bounded results, shared by the fleet (issue 28; outputs.ts). A saved output is the
 * local file `tool_<id>` (its name is `id`) and, on a shared PostgreSQL store, these rows too: the
 * output's row, then its bytes in `output_chunk` rows of at most 1 MiB each, so a 200 MB output is
 * never one value. `bytes` and `chunks` stay NULL until every chunk is in. SQLite has the tables too
 * (one schema), unused: its outputs are read from the data dir's files.
 */
export const V11 = `
CREATE TABLE output (
  id TEXT PRIMARY KEY,
  session_id TEXT,
  call_id TEXT,
  created INTEGER NOT NULL,
  bytes INTEGER,
  chunks INTEGER
) STRICT;
CREATE INDEX output_created ON output (created);
CREATE INDEX output_call ON output (session_id, call_id);
CREATE TABLE output_chunk (
  output_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (output_id, seq)
) STRICT;
`

/**
 * Outputs stored once (issue 31). A completed call's output of `SHARED_OUTPUT_CHARS` or more is kept
 * in `part_output` under its SHA-256, and the part names it in `output_digest`: an agent reading the
 * same file again and again commits a name instead of the whole text each time (the journal commit and
 * the WAL checkpoint were a fifth of an MCP read's CPU). Parts written before keep `output` inline.
 */
export const V12 = `
CREATE TABLE part_output (
  digest TEXT PRIMARY KEY,
  text TEXT NOT NULL
) STRICT;
ALTER TABLE part ADD COLUMN output_digest TEXT REFERENCES part_output (digest);
CREATE INDEX part_output_digest ON part (output_digest) WHERE output_digest IS NOT NULL;
`

/**
 * The journal numbered by its rowid alone (issue 31). `AUTOINCREMENT` kept a counter in
 * `sqlite_sequence`, whose page every commit wrote again: one more WAL frame a commit, a sixth to a
 * quarter of a journal commit's time. It only differs from the rowid's own numbering (the largest
 * plus one) after the newest rows are deleted, and nothing deletes journal rows. The numbers are kept.
 */
export const V13 = `
CREATE TABLE journal_v13 (
  seq INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  call_id TEXT,
  kind TEXT NOT NULL CHECK (
    kind = 'requested' OR kind = 'asked' OR kind = 'decided' OR kind = 'started' OR kind = 'progress' OR
    kind = 'finished' OR kind = 'interrupted'
  ),
  data TEXT NOT NULL,
  time INTEGER NOT NULL
) STRICT;
INSERT INTO journal_v13 (seq, session_id, call_id, kind, data, time)
  SELECT seq, session_id, call_id, kind, data, time FROM journal;
DROP TABLE journal;
ALTER TABLE journal_v13 RENAME TO journal;
CREATE INDEX journal_call ON journal (session_id, call_id, seq);
DELETE FROM sqlite_sequence WHERE name = 'journal';
`
