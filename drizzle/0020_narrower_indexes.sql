ALTER TABLE "activations" DROP CONSTRAINT "activations_install_token_jti_hash_unique";--> statement-breakpoint
DROP INDEX "servers_public_ip_idx";--> statement-breakpoint
DROP INDEX "servers_machine_id_idx";--> statement-breakpoint
DROP INDEX "servers_ssh_fingerprint_idx";--> statement-breakpoint
DROP INDEX "activations_search_idx";--> statement-breakpoint
DROP INDEX "install_codes_search_idx";--> statement-breakpoint
DROP INDEX "servers_search_idx";--> statement-breakpoint
CREATE INDEX "activations_search_idx" ON "activations" USING gin ("hostname" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "install_codes_search_idx" ON "install_codes" USING gin ("hint" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "servers_search_idx" ON "servers" USING gin ("hostname" gin_trgm_ops);