ALTER TABLE "servers" ADD COLUMN "last_checkin_ip" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "previous_checkin_ip" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "address_alternations" integer DEFAULT 0 NOT NULL;