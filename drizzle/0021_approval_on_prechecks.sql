ALTER TABLE "install_codes" ADD COLUMN "require_approval" boolean DEFAULT false NOT NULL;--> statement-breakpoint
UPDATE "install_codes" SET "require_approval" = true WHERE "approval" IS NOT NULL;--> statement-breakpoint
UPDATE "install_code_prechecks" SET "decision" = "install_codes"."approval", "decided_at" = "install_codes"."approval_decided_at" FROM "install_codes" WHERE "install_codes"."approval_precheck_id" = "install_code_prechecks"."id" AND "install_codes"."id" = "install_code_prechecks"."install_code_id" AND "install_codes"."uses" = 1 AND "install_codes"."approval" IN ('approved', 'denied');--> statement-breakpoint
ALTER TABLE "install_codes" DROP CONSTRAINT "install_codes_approval_check";--> statement-breakpoint
ALTER TABLE "install_codes" DROP COLUMN "approval";--> statement-breakpoint
ALTER TABLE "install_codes" DROP COLUMN "approval_precheck_id";--> statement-breakpoint
ALTER TABLE "install_codes" DROP COLUMN "approval_decided_at";
