CREATE TABLE "rate_limit_overrides" (
	"id" text PRIMARY KEY NOT NULL,
	"subject" text NOT NULL,
	"value" text NOT NULL,
	"subject_key" text NOT NULL,
	"limit_name" text NOT NULL,
	"quota" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"created_by" text NOT NULL,
	"removed_at" timestamp with time zone,
	"removed_by" text,
	"removal_reason" text,
	CONSTRAINT "rate_limit_overrides_subject_check" CHECK ("rate_limit_overrides"."subject" in ('ip', 'cidr', 'machine')),
	CONSTRAINT "rate_limit_overrides_quota_check" CHECK ("rate_limit_overrides"."quota" between 1 and 10000)
);
--> statement-breakpoint
CREATE INDEX "rate_limit_overrides_created_at_idx" ON "rate_limit_overrides" USING btree ("created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "rate_limit_overrides_target_idx" ON "rate_limit_overrides" USING btree ("limit_name","subject","subject_key") WHERE "rate_limit_overrides"."removed_at" is null;