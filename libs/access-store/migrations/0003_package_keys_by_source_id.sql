-- Source packages are keyed `<source id>/<package key>` (issue 9: a recreated source
-- inherits nothing), where they were keyed `<source slug>/<package key>` per project.
-- Sources stored before this version keep the id `<project>/<slug>` (index migration 4),
-- so a stored key `<slug>/<key>` of project P becomes `P/<slug>/<key>`. Installed
-- package keys are package ids: `name` or `@scope/name`; a key with one `/` that does
-- not start with `@` is a source package's. Portable: the same text on both backends.

UPDATE access_package_states
   SET package_key = project || '/' || package_key
 WHERE package_key LIKE '%/%'
   AND package_key NOT LIKE '%/%/%'
   AND package_key NOT LIKE '@%';

-- Conversation overrides: the conversation's registered project.
UPDATE access_conversation_overrides
   SET package_key = (
         SELECT c.project FROM access_conversations c
          WHERE c.conversation = access_conversation_overrides.conversation
       ) || '/' || package_key
 WHERE package_key LIKE '%/%'
   AND package_key NOT LIKE '%/%/%'
   AND package_key NOT LIKE '@%'
   AND EXISTS (
         SELECT 1 FROM access_conversations c
          WHERE c.conversation = access_conversation_overrides.conversation
       );

-- Agent-scope overrides name no project (an agent's configuration is platform-wide),
-- so a stored `<slug>/<key>` cannot be attributed to one source: they are left as they
-- are and no longer match (docs/decisions/security.md says so).
