CREATE TABLE "events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"type" text NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"actor" text NOT NULL,
	"install_code_id" text,
	"activation_id" text,
	"server_id" text,
	"request_id" text,
	"client_key_hash" text,
	"data" jsonb NOT NULL,
	"delivered_at" timestamp with time zone,
	CONSTRAINT "events_actor_check" CHECK ("events"."actor" in ('installer', 'agent', 'operator', 'browser'))
);
--> statement-breakpoint
ALTER TABLE "install_codes" DROP CONSTRAINT "install_codes_status_check";--> statement-breakpoint
ALTER TABLE "install_codes" ADD COLUMN "revoked_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "events_occurred_at_idx" ON "events" USING btree ("occurred_at");--> statement-breakpoint
CREATE INDEX "events_type_idx" ON "events" USING btree ("type","id");--> statement-breakpoint
CREATE INDEX "events_install_code_id_idx" ON "events" USING btree ("install_code_id");--> statement-breakpoint
CREATE INDEX "events_activation_id_idx" ON "events" USING btree ("activation_id");--> statement-breakpoint
CREATE INDEX "events_server_id_idx" ON "events" USING btree ("server_id");--> statement-breakpoint
CREATE INDEX "events_undelivered_idx" ON "events" USING btree ("id") WHERE "events"."delivered_at" is null;--> statement-breakpoint
CREATE INDEX "activations_created_at_idx" ON "activations" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "install_codes_issued_at_idx" ON "install_codes" USING btree ("issued_at","id");--> statement-breakpoint
CREATE INDEX "servers_registered_at_idx" ON "servers" USING btree ("registered_at","id");--> statement-breakpoint
ALTER TABLE "install_codes" ADD CONSTRAINT "install_codes_status_check" CHECK ("install_codes"."status" in ('issued', 'activated', 'consumed', 'revoked'));