import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** Body of `POST /orders/:id/payment`. */
export class PayOrderDto {
  /** The payment provider's reference of the captured payment. Stored, never logged. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  paymentRef!: string;
}
