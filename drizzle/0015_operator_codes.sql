ALTER TABLE "activations" ADD COLUMN "tags" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "install_code_prechecks" ADD COLUMN "decision" text;--> statement-breakpoint
ALTER TABLE "install_code_prechecks" ADD COLUMN "decided_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "install_codes" ADD COLUMN "uses" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "install_codes" ADD COLUMN "uses_spent" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "install_codes" ADD COLUMN "last_used_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "install_codes" ADD COLUMN "operator" text;--> statement-breakpoint
ALTER TABLE "install_codes" ADD COLUMN "description" text;--> statement-breakpoint
ALTER TABLE "install_codes" ADD COLUMN "tags" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "install_codes" ADD COLUMN "allowed_cidrs" text[];--> statement-breakpoint
ALTER TABLE "install_codes" ADD COLUMN "hostname_pattern" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "tags" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "install_code_prechecks" ADD CONSTRAINT "install_code_prechecks_decision_check" CHECK ("install_code_prechecks"."decision" in ('approved', 'denied'));--> statement-breakpoint
ALTER TABLE "install_codes" ADD CONSTRAINT "install_codes_uses_check" CHECK ("install_codes"."uses" between 1 and 10000 and "install_codes"."uses_spent" between 0 and "install_codes"."uses");--> statement-breakpoint
UPDATE "install_codes" SET "uses_spent" = 1 WHERE "status" = 'consumed';