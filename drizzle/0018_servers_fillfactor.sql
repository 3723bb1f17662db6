-- Written by hand (drizzle-kit has no table storage parameters; the snapshot beside it is drizzle-kit's,
-- unchanged): a server's page keeps a fifth free, so that a check-in (no indexed column changed) stays a
-- HOT update on its page instead of moving the row and writing every index of it. It applies to pages
-- written from now on. The lock it takes (SHARE UPDATE EXCLUSIVE) lets check-ins and the steps through.
ALTER TABLE "servers" SET (fillfactor = 80);
