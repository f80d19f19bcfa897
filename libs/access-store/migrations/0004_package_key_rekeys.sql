-- Package keys are now derived from the package's own root and name, never from the
-- other packages of the source (issue 10; docs/decisions/layout.md, "Package keys").
-- Which new key a stored legacy key belongs to depends on the source's packages, which
-- only the index knows, so the re-keying itself runs once per source when its layout is
-- known (PolicyService.RekeyPackages, services only). This table records the sources
-- already re-keyed, so a legacy key is moved once and never again (a later package could
-- legitimately take a bare name that was once a legacy key). Portable SQL.

CREATE TABLE access_package_rekeys (
    source_id TEXT PRIMARY KEY
);
