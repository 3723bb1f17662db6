CREATE TABLE "notice_watch" (
	"name" text PRIMARY KEY NOT NULL,
	"last_pass_at" timestamp with time zone NOT NULL,
	"down_from" timestamp with time zone,
	"down_until" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "webhook_endpoints" DROP CONSTRAINT "webhook_endpoints_secret_check";--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ALTER COLUMN "url" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "install_codes" ADD COLUMN "expiry_warned_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "operator_tokens" ADD COLUMN "expiry_warned_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "notified_health" text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "url_sealed" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "format" text DEFAULT 'standard' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "send_after" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "servers" ADD CONSTRAINT "servers_notified_health_check" CHECK ("servers"."notified_health" in ('active', 'stale', 'dead'));--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_url_check" CHECK (("webhook_endpoints"."url" is null) <> ("webhook_endpoints"."url_sealed" is null));--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_format_check" CHECK ("webhook_endpoints"."format" in ('standard', 'slack', 'discord', 'teams', 'google_chat'));--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_secret_check" CHECK (case when "webhook_endpoints"."format" = 'standard' then ("webhook_endpoints"."secret" is null) <> ("webhook_endpoints"."secret_sealed" is null) else "webhook_endpoints"."secret" is null and "webhook_endpoints"."secret_sealed" is null end);