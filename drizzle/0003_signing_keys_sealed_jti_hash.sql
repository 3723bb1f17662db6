ALTER TABLE "activations" RENAME COLUMN "install_token_jti" TO "install_token_jti_hash";--> statement-breakpoint
ALTER TABLE "activations" DROP CONSTRAINT "activations_install_token_jti_unique";--> statement-breakpoint
-- Written by hand (drizzle-kit generates no data changes): existing jtis become their SHA-256 hex, as sha256Hex does in src/domain/secret-hash.ts.
UPDATE "activations" SET "install_token_jti_hash" = encode(sha256(convert_to("install_token_jti_hash", 'UTF8')), 'hex');--> statement-breakpoint
ALTER TABLE "signing_keys" ALTER COLUMN "private_jwk" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "signing_keys" ADD COLUMN "private_jwk_sealed" text;--> statement-breakpoint
ALTER TABLE "signing_keys" ADD COLUMN "signing_ended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "signing_keys" ADD COLUMN "retired_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "activations" ADD CONSTRAINT "activations_install_token_jti_hash_unique" UNIQUE("install_token_jti_hash");--> statement-breakpoint
ALTER TABLE "signing_keys" ADD CONSTRAINT "signing_keys_private_key_check" CHECK (case when "signing_keys"."retired_at" is null then ("signing_keys"."private_jwk" is null) <> ("signing_keys"."private_jwk_sealed" is null) else "signing_keys"."private_jwk" is null and "signing_keys"."private_jwk_sealed" is null end);